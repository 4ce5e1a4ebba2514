-- The results file of the worked example in docs/billing.md: the database
-- tests/unit/test_bill.c builds by hand (make_db), whose invoices are worked
-- out in that file's comments. The doc-test builds it with
-- `sqlite3 test.db < tests/doc/bill-example.sql` and runs `hetlab bill` on
-- it; keep the two in step.
CREATE TABLE meta(key TEXT, value TEXT);
INSERT INTO meta VALUES ('schema_version', '1');
CREATE TABLE job(id INTEGER PRIMARY KEY, class TEXT, tenant INTEGER, grp INTEGER,
  state TEXT, submit_us INTEGER, start_us INTEGER, end_us INTEGER, cores INTEGER,
  gpus INTEGER, mem_mib INTEGER, gpu_model TEXT, gpu_share TEXT, gpu_s REAL,
  core_s REAL, energy_j REAL, energy_cost REAL);
INSERT INTO job VALUES
  (1, 'training', 0, 1, 'done', 0, 0, 3600000000, 8, 2, 10240, 'H100-SXM-80GB', NULL,
   7200, 28800, 3.6e6, 0.7),
  (2, 'inference', 0, 0, 'done', 0, 3600000000, 10800000000, 0, 1, 0, 'A100-SXM-80GB',
   '1g.10gb', 7200.0 / 7, 0, NULL, NULL),
  (3, 'inference', 0, 0, 'done', 0, 0, 3600000000, 0, 1, 0, 'A100-SXM-80GB',
   '3g.40gb', 3600.0 * 3 / 7, 0, NULL, NULL),
  (4, 'dev', 0, 0, 'done', 0, 0, 14400000000, 0, 1, 0, 'H100-SXM-80GB', '250m',
   3600, 0, NULL, NULL),
  (5, 'batch', 0, 0, 'done', 0, 82800000000, 93600000000, 10, 0, 0, NULL, NULL,
   0, 108000, NULL, NULL),
  (6, 'training', 1, 0, 'done', 0, 0, 14400000000, 0, 8, 0, 'H100-SXM-80GB', NULL,
   115200, 0, NULL, NULL),
  (7, 'training', 2, 0, 'done', 0, 0, 36000000000, 0, 1, 0, 'A100-SXM-80GB', NULL,
   36000, 0, 7.2e6, 1.3),
  (8, 'training', 3, 0, 'running', 0, 0, NULL, 0, 1, 0, 'H100-SXM-80GB', NULL,
   3600, 0, NULL, NULL),
  (9, 'batch', 3, 0, 'killed', 0, NULL, 5000000, 0, 0, 0, NULL, NULL, 0, 0, NULL, NULL),
  (10, 'training', 4, 0, 'done', 0, 0, 3600000000, 0, 1, 0, 'H100-SXM-80GB', NULL,
   3600, 0, NULL, NULL);
CREATE TABLE billing(config TEXT);
INSERT INTO billing VALUES ('{"currency": "CNY", "period": "day", "prices": {"gpu_hour": {"H100-SXM-80GB": 18, "A100-SXM-80GB": 9},  "mig_hour": {"1g.10gb": 1.5}, "share": 1.0, "core_hour": 0.05,  "mem_gib_hour": 0.002, "energy": "pass-through"}, "plans": [{"tenant": "alpha", "tenant_index": 0, "plan": "reserved",   "commit": "monthly", "baseline": 100, "overage": "elastic"},  {"tenant": "t1", "tenant_index": 1, "plan": "reserved", "commit": "yearly",   "baseline": 500, "overage": "refuse"},  {"tenant": "t2", "tenant_index": 2, "plan": "elastic"},  {"tenant": "t4", "tenant_index": 4, "plan": "reserved", "baseline": 10}], "tenants": [{"name": "alpha", "projects": ["p-a", "p-b"]}]}');
