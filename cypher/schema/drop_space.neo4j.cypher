// A retired vector space's store-wide indexes (after a re-embed switched away from it).
DROP INDEX {{ space(refines_reason_embedding) }} IF EXISTS;
DROP INDEX {{ space(consolidates_reason_embedding) }} IF EXISTS;
DROP INDEX {{ space(supersedes_reason_embedding) }} IF EXISTS;
DROP INDEX {{ space(topic_embedding) }} IF EXISTS;
DROP INDEX {{ space(episode_embedding) }} IF EXISTS;
