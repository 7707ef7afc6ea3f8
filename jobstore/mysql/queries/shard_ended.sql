-- Counts a shard's end on its sharded fire (shards.c,
-- chime__mysql_shard_ended); in the part failed, a failed one also adds
-- its index to the failed list (kept short).  No row changes when the
-- sharded fire is gone (its job was removed).  A text statement.  Slots:
-- index (in the part failed), parent.
-- Called by: shards.c (chime__mysql_shard_ended).
UPDATE {P}fired
SET shards_left = shards_left - 1
    /*[failed*/ , shards_failed = shards_failed + 1,
    failed_list = IF(CHAR_LENGTH(failed_list) > 200, failed_list,
      CONCAT_WS(',', NULLIF(failed_list, ''), /*:index*/)) /*]*/
WHERE fire_id = /*:parent*/
  AND state = 'SHARDED'
  AND shards_left > 0
