-- smq's pgmq-compatible schema, last part: the version row tells install.ts the schema is
-- complete (install.ts COMPAT_VERSION must say the same; a unit test checks).
UPDATE pgmq.smq_compat SET version = '1.13.0';
INSERT INTO pgmq.smq_compat (version)
SELECT '1.13.0' WHERE NOT EXISTS (SELECT 1 FROM pgmq.smq_compat);
