-- Marks a fire SHARDED after its shards' triggers were inserted (shards.c,
-- split_fn): no node's fire any more, counting its shards down.  A text
-- statement.  Slots: total, left (both the shard count), split_ms,
-- fire_id.
-- Called by: shards.c (split_fn).
UPDATE {P}fired
SET state = 'SHARDED', shards_total = /*:total*/, shards_left = /*:left*/,
    split_ms = /*:split_ms*/
WHERE fire_id = /*:fire_id*/
