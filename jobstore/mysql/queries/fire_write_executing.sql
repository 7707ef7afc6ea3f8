-- Moves the fired rows of a batch of fires to EXECUTING, with their jobs'
-- flags as they are now.  A text statement.  Slots: forbid and recovery
-- ("fire_id IN (0,id...)" of the fires whose job runs alone, whose job
-- requests recovery), all (the same of every fire).
-- Called by: fire.c (write_executing).
UPDATE {P}fired FORCE INDEX (PRIMARY)
SET state = 'EXECUTING', forbid = /*:forbid*/,
    requests_recovery = /*:recovery*/
WHERE /*:all*/
