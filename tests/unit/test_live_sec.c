/* Live mode against hostile input and hostile local users: log lines
 * that cannot be forged or drive a terminal (live_escape, the prefix with
 * wall-clock time and level), probe readings that never block or exhaust
 * memory (reading_file_read), the state directory's ownership and
 * permission rules (live/statedir.h), job lines checked and capped
 * (live_job_norm), the identity columns of the inbox and the quarantine,
 * and the daemon's socket (live/sock.h): requests, replies, identity from
 * the kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "live/livelog.h"
#include "live/daemon.h"
#include "live/sock.h"
#include "live/state.h"
#include "live/reading.h"
#include "live/statedir.h"
#include "tests/testutil.h"

#define HAS(hay, needle) do { const char *h_ = (hay), *n_ = (needle); if (!strstr(h_, n_)) \
	fail_msg("expected \"%s\" in \"%s\"", n_, h_); } while (0)

/* ---- temporary directories ---- */

static char *tmpdir_new(void) { return tu_tmpdir_new("sec-unit"); }
static void tmpdir_free(char *d) { tu_tmpdir_free(d); }

static char *path_in(const char *dir, const char *name)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static mode_t mode_of(const char *path)
{
	struct stat sb;
	assert_int_equal(lstat(path, &sb), 0);
	return sb.st_mode & 07777;
}

/* ---- the state directory ---- */

static void test_statedir_prepare(void **state)
{
	(void)state;
	char *d = tmpdir_new(), err[1024] = "";
	char *st = path_in(d, "st");
	if (lsdir_prepare(st, NULL, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(mode_of(st), 0700);
	/* An older, looser mode is tightened; a writable one is refused. */
	assert_int_equal(chmod(st, 0755), 0);
	assert_int_equal(lsdir_prepare(st, "", err, sizeof err), 0);
	assert_int_equal(mode_of(st), 0700);
	assert_int_equal(chmod(st, 0777), 0);
	assert_int_equal(lsdir_prepare(st, NULL, err, sizeof err), -1);
	HAS(err, "writable by everyone (mode 0777): refused");
	assert_int_equal(chmod(st, 0770), 0);
	assert_int_equal(lsdir_prepare(st, NULL, err, sizeof err), -1);
	HAS(err, "writable by its group");
	assert_int_equal(chmod(st, 0700), 0);
	/* With a group: 0750 and that group. */
	struct stat sb;
	assert_int_equal(lsdir_prepare(st, "no-such-group-hetlab", err, sizeof err), -1);
	HAS(err, "state_group \"no-such-group-hetlab\": no such group");
	if (getgid() == 0 || geteuid() == 0) {
		if (lsdir_prepare(st, "root", err, sizeof err))
			fail_msg("%s", err);
		assert_int_equal(mode_of(st), 0750);
		assert_int_equal(stat(st, &sb), 0);
		assert_int_equal(sb.st_gid, 0);
	}
	/* Not a directory. */
	char *f = path_in(d, "file");
	write_file(f, "x", 0600);
	assert_int_equal(lsdir_prepare(f, NULL, err, sizeof err), -1);
	HAS(err, "not a directory");
	/* A parent writable by everyone without the sticky bit: refused, and
	 * nothing is created in it; with the sticky bit (as /tmp): fine. */
	char *ww = path_in(d, "ww"), *wst = path_in(ww, "st");
	assert_int_equal(mkdir(ww, 0777), 0);
	assert_int_equal(chmod(ww, 0777), 0);
	assert_int_equal(lsdir_prepare(wst, NULL, err, sizeof err), -1);
	HAS(err, "writable by everyone and has no sticky bit");
	assert_int_equal(access(wst, F_OK), -1);
	assert_int_equal(chmod(ww, 01777), 0);
	if (lsdir_prepare(wst, NULL, err, sizeof err))
		fail_msg("%s", err);
	/* ... and the state above it checked too when it exists. */
	assert_int_equal(chmod(ww, 0777), 0);
	assert_int_equal(lsdir_prepare(wst, NULL, err, sizeof err), -1);
	HAS(err, "has no sticky bit");
	assert_int_equal(chmod(ww, 0755), 0);
	/* A relative path is checked from the current directory. */
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(d), 0);
	if (lsdir_prepare("st", NULL, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(chdir(cwd), 0);
	/* A missing parent. */
	char *deep = path_in(d, "no/such/st");
	assert_int_equal(lsdir_prepare(deep, NULL, err, sizeof err), -1);
	HAS(err, "cannot make the state");
	free(deep);
	free(ww);
	free(wst);
	free(f);
	free(st);
	tmpdir_free(d);
}

static void test_statedir_files(void **state)
{
	(void)state;
	char *d = tmpdir_new(), err[1024] = "";
	assert_int_equal(chmod(d, 0700), 0);
	/* A planted link is never followed: the file it names is untouched. */
	char *victim = path_in(d, "victim"), *lock = path_in(d, "daemon.lock");
	write_file(victim, "precious\n", 0644);
	assert_int_equal(symlink(victim, lock), 0);
	assert_int_equal(lsdir_open(d, "daemon.lock", O_RDWR | O_CREAT, err, sizeof err), -1);
	HAS(err, "daemon.lock: a symbolic link: refused");
	assert_int_equal(lsdir_check_file(d, "daemon.lock", err, sizeof err), -1);
	char buf[32] = "";
	int fd = open(victim, O_RDONLY);
	assert_true(read(fd, buf, sizeof buf - 1) > 0);
	close(fd);
	assert_string_equal(buf, "precious\n");
	unlink(lock);
	/* Created 0600; an existing 0644 is made 0600; 0666 is refused. */
	fd = lsdir_open(d, "daemon.lock", O_RDWR | O_CREAT, err, sizeof err);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mode_of(lock), 0600);
	char *db = path_in(d, "state.db");
	write_file(db, "x", 0644);
	assert_int_equal(lsdir_check_file(d, "state.db", err, sizeof err), 0);
	assert_int_equal(mode_of(db), 0600);
	assert_int_equal(chmod(db, 0666), 0);
	assert_int_equal(lsdir_check_file(d, "state.db", err, sizeof err), -1);
	HAS(err, "writable by everyone (mode 0666): refused");
	assert_int_equal(chmod(db, 0600), 0);
	/* A hard link to a file elsewhere. */
	char *hl = path_in(d, "state.db-wal");
	assert_int_equal(link(victim, hl), 0);
	assert_int_equal(lsdir_check_file(d, "state.db-wal", err, sizeof err), -1);
	HAS(err, "hard links");
	unlink(hl);
	/* Missing is fine; a FIFO is not a regular file (and does not block). */
	assert_int_equal(lsdir_check_file(d, "state.db-wal", err, sizeof err), 0);
	assert_int_equal(mkfifo(hl, 0600), 0);
	assert_int_equal(lsdir_check_file(d, "state.db-wal", err, sizeof err), -1);
	HAS(err, "not a regular file");
	unlink(hl);
	/* A subdirectory: made 0700; a link in its place refused. */
	assert_int_equal(lsdir_subdir(d, "jobs", err, sizeof err), 0);
	char *jobs = path_in(d, "jobs"), *sl = path_in(d, "slurm");
	assert_int_equal(mode_of(jobs), 0700);
	assert_int_equal(symlink("/", sl), 0);
	assert_int_equal(lsdir_subdir(d, "slurm", err, sizeof err), -1);
	HAS(err, "a symbolic link: refused");
	uid_t uid;
	assert_int_equal(lsdir_owner(d, &uid, err, sizeof err), 0);
	assert_int_equal(uid, geteuid());
	assert_int_equal(lsdir_owner(jobs + 0, &uid, err, sizeof err), 0);
	char *none = path_in(d, "typo");
	assert_int_equal(lsdir_owner(none, &uid, err, sizeof err), -1);
	HAS(err, "no such state directory");
	free(none);
	free(jobs);
	free(sl);
	free(hl);
	free(db);
	free(lock);
	free(victim);
	tmpdir_free(d);
}

/* Another user's directory, file or link (root only: chown). */
static void test_statedir_other_user(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		skip();
		return;
	}
	char *d = tmpdir_new(), err[1024] = "";
	uid_t nobody = 65534;
	char *st = path_in(d, "st");
	assert_int_equal(mkdir(st, 0700), 0);
	assert_int_equal(chown(st, nobody, (gid_t)-1), 0);
	assert_int_equal(lsdir_prepare(st, NULL, err, sizeof err), -1);
	HAS(err, "the state directory belongs to");
	HAS(err, "not to the daemon's user");
	/* A state below another user's directory. */
	char *sub = path_in(st, "inner");
	assert_int_equal(lsdir_prepare(sub, NULL, err, sizeof err), -1);
	HAS(err, "belongs to");
	HAS(err, "who could replace it");
	/* A link planted by another user in a sticky directory. */
	char *tmp = path_in(d, "sticky"), *link_ = NULL, *mine = path_in(d, "mine");
	assert_int_equal(mkdir(tmp, 01777), 0);
	assert_int_equal(chmod(tmp, 01777), 0);
	assert_int_equal(mkdir(mine, 0700), 0);
	link_ = path_in(tmp, "st");
	assert_int_equal(symlink(mine, link_), 0);
	assert_int_equal(lchown(link_, nobody, (gid_t)-1), 0);
	assert_int_equal(lsdir_prepare(link_, NULL, err, sizeof err), -1);
	HAS(err, "a symbolic link that belongs to");
	/* One of our own is fine. */
	assert_int_equal(lchown(link_, 0, (gid_t)-1), 0);
	if (lsdir_prepare(link_, NULL, err, sizeof err))
		fail_msg("%s", err);
	/* A file of another user in our state. */
	char *db = path_in(mine, "state.db");
	write_file(db, "x", 0600);
	assert_int_equal(chown(db, nobody, (gid_t)-1), 0);
	assert_int_equal(lsdir_check_file(mine, "state.db", err, sizeof err), -1);
	HAS(err, "not to the daemon's user: refused");
	free(db);
	free(link_);
	free(mine);
	free(tmp);
	free(sub);
	free(st);
	tmpdir_free(d);
}

/* ---- probe readings ---- */

static void test_reading_file(void **state)
{
	(void)state;
	char *d = tmpdir_new(), err[1024] = "";
	struct sim_reading r;
	char *p = path_in(d, "h1.json");
	/* None yet; then a good one; then stale. */
	assert_int_equal(reading_read_file(p, 60, &r, err, sizeof err), 1);
	write_file(p, "{\"power_w\": 300, \"temp_c\": 50}\n", 0644);
	if (reading_read_file(p, 60, &r, err, sizeof err))
		fail_msg("%s", err);
	assert_true(r.power_w == 300 && r.temp_c == 50);
	struct timespec old[2] = { { .tv_sec = time(NULL) - 120 }, { .tv_sec = time(NULL) - 120 } };
	assert_int_equal(utimensat(AT_FDCWD, p, old, 0), 0);
	assert_int_equal(reading_read_file(p, 60, &r, err, sizeof err), 1);
	unlink(p);
	/* A FIFO: refused at once (opening it for reading would wait for a
	 * writer for ever). */
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(reading_read_file(p, 60, &r, err, sizeof err), -1);
	HAS(err, "h1.json: not a regular file (a FIFO)");
	unlink(p);
	/* A directory, a device. */
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(reading_read_file(p, 60, &r, err, sizeof err), -1);
	HAS(err, "not a regular file (a directory)");
	rmdir(p);
	assert_int_equal(reading_read_file("/dev/zero", 1e9, &r, err, sizeof err), -1);
	HAS(err, "/dev/zero: not a regular file (a device)");
	/* 300 MiB (sparse): refused by its size, never read. */
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 300LL << 20), 0);
	close(fd);
	assert_int_equal(reading_read_file(p, 60, &r, err, sizeof err), -1);
	HAS(err, "h1.json: 314572800 bytes: a reading is at most 65536 bytes");
	/* At the cap it is read (and must then parse). */
	char *big = malloc(READING_MAX_BYTES + 1);
	memset(big, ' ', READING_MAX_BYTES);
	memcpy(big, "{\"util\": 0.5}", 13);
	big[READING_MAX_BYTES] = 0;
	write_file(p, big, 0644);
	if (reading_read_file(p, 60, &r, err, sizeof err))
		fail_msg("%s", err);
	assert_true(r.util == 0.5);
	free(big);
	/* A symbolic link is not followed (to /etc/shadow, a root daemon would
	 * read what the agent may not), and a file that is not JSON is not
	 * quoted in the error. */
	char *lk = path_in(d, "h2.json"), *sec = path_in(d, "secret");
	write_file(sec, "root:$6$salt$hash:19000:0:99999:7:::\n", 0600);
	assert_int_equal(symlink(sec, lk), 0);
	assert_int_equal(reading_read_file(lk, 60, &r, err, sizeof err), -1);
	HAS(err, "h2.json: a symbolic link (not followed)");
	assert_null(strstr(err, "root"));
	unlink(lk);
	assert_int_equal(rename(sec, lk), 0);
	assert_int_equal(reading_read_file(lk, 60, &r, err, sizeof err), -1);
	HAS(err, "h2.json:1:4: '[' or '{' expected");
	assert_null(strstr(err, "root"));
	unlink(lk);
	free(lk);
	free(sec);
	/* Bad contents name the file and the key. */
	write_file(p, "{\"tempc\": 50}", 0644);
	assert_int_equal(reading_read_file(p, 60, &r, err, sizeof err), -1);
	HAS(err, "h1.json: $.tempc: unknown key");
	free(p);
	tmpdir_free(d);
}

/* ---- job lines ---- */

static void test_job_norm(void **state)
{
	(void)state;
	char err[1024];
	/* Filled, a client's "submitter" dropped. */
	const char *line = "{\"class\": \"batch\", \"req\": {\"nodes\": 1, \"cores\": 1}, \"argv\": [\"true\"],"
	                   " \"submitter\": {\"uid\": 0, \"gid\": 0, \"user\": \"root\"}}";
	char *t = live_job_norm("j.jsonl", 3, line, strlen(line), NULL, err, sizeof err);
	if (!t)
		fail_msg("%s", err);
	assert_null(strstr(t, "submitter"));
	HAS(t, "\"submit_us\":0");
	free(t);
	/* Too long: refused before it is parsed, naming the line. */
	size_t n = LIVE_JOB_LINE_MAX + 1;
	char *big = malloc(n + 1);
	memset(big, ' ', n);
	big[n] = 0;
	assert_null(live_job_norm("j.jsonl", 9, big, n, NULL, err, sizeof err));
	HAS(err, "j.jsonl:9: a job line of 65537 bytes: at most 65536 bytes are accepted");
	free(big);
	assert_null(live_job_norm("j.jsonl", 2, "[1]", 3, NULL, err, sizeof err));
	HAS(err, "j.jsonl:2: $: expected a job object");
	assert_null(live_job_norm("j.jsonl", 2, "{\"class\": \"batch\"", 17, NULL, err, sizeof err));
	HAS(err, "j.jsonl:2:");
}

/* ---- the socket ---- */

static const char sock_scn[] =
	"{ \"name\": \"sock\", \"seed\": 1, \"policy\": \"fcfs\","
	"  \"org\": { \"tenants\": [ { \"name\": \"lab\" } ] },"
	"  \"node_types\": [ { \"name\": \"c\", \"cpu\": \"Xeon-6348\", \"sockets\": 1, \"cores\": 2, \"mem_gib\": 8 } ],"
	"  \"racks\": [ { \"name\": \"r1\", \"power_kw\": 15, \"nodes\": [ { \"type\": \"c\", \"count\": 2, \"names\": [\"h1\", \"h2\"] } ] } ] }";

struct sk {
	char *d, *st, *path;
	struct lsock *s;
};

/* The daemon's time for a request (0: its 10 s): a test that sends 32 MiB
 * gives it more, as valgrind may take longer than 10 s over them. */
static int32_t sk_deadline_ms;

static void sk_start(struct sk *k)
{
	char err[1024];
	k->d = tmpdir_new();
	k->st = path_in(k->d, "st");
	k->path = path_in(k->d, "s.sock");
	struct lstate st;
	if (lstate_open(&st, k->st, err, sizeof err))
		fail_msg("%s", err);
	lstate_close(&st);
	struct lsock_cfg c = { .path = k->path, .state_dir = k->st, .scenario_text = sock_scn, .scenario_file = "sock.json",
	                       .quiet = true, .deadline_ms = sk_deadline_ms };
	if (lsock_start(&k->s, &c, err, sizeof err))
		fail_msg("%s", err);
}

static void sk_stop(struct sk *k)
{
	lsock_stop(k->s);
	assert_int_equal(access(k->path, F_OK), -1);   /* removed */
	free(k->path);
	free(k->st);
	tmpdir_free(k->d);
}

/* A request and its reply, parsed. */
static json_t *call(const char *path, const char *req)
{
	char err[1024];
	bool absent;
	char *r = lsock_call(path, req, &absent, err, sizeof err);
	if (!r)
		fail_msg("%s", err);
	json_t *o = json_loads(r, 0, NULL);
	if (!o)
		fail_msg("not JSON: %s", r);
	free(r);
	return o;
}

static const char *error_of(json_t *o)
{
	assert_false(json_is_true(json_object_get(o, "ok")));
	return json_string_value(json_object_get(o, "error"));
}

static int64_t count_of(const char *dir, const char *sql)
{
	char p[4200], err[1024];
	snprintf(p, sizeof p, "%s/state.db", dir);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	int64_t n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
	sqlite3_finalize(q);
	sqlite3_close(db);
	(void)err;
	return n;
}

static void test_sock_requests(void **state)
{
	(void)state;
	struct sk k;
	sk_start(&k);
	struct stat sb;
	assert_int_equal(lstat(k.path, &sb), 0);
	assert_true(S_ISSOCK(sb.st_mode));
	assert_int_equal(sb.st_mode & 0777, 0666);
	json_t *o = call(k.path, "{\"op\": \"whoami\"}");
	assert_true(json_is_true(json_object_get(o, "ok")));
	assert_int_equal(json_integer_value(json_object_get(o, "uid")), geteuid());
	assert_true(json_is_true(json_object_get(o, "operator")));   /* the daemon's own user */
	json_decref(o);
	/* A submission: checked, queued whole with who sent it. */
	o = call(k.path, "{\"op\": \"submit\", \"src\": \"j.jsonl\", \"jobs\": ["
	                 "{\"line\": 1, \"text\": \"{\\\"class\\\": \\\"batch\\\", \\\"req\\\": {\\\"nodes\\\": 1, \\\"cores\\\": 2},"
	                 " \\\"argv\\\": [\\\"true\\\"], \\\"submitter\\\": {\\\"uid\\\": 4242, \\\"gid\\\": 1, \\\"user\\\": \\\"x\\\"}}\"},"
	                 "{\"line\": 4, \"text\": \"{\\\"class\\\": \\\"batch\\\", \\\"req\\\": {\\\"nodes\\\": 1, \\\"cores\\\": 1}, \\\"argv\\\": [\\\"true\\\"]}\"}]}");
	assert_true(json_is_true(json_object_get(o, "ok")));
	assert_int_equal(json_integer_value(json_object_get(o, "queued")), 2);
	assert_int_equal(json_integer_value(json_object_get(o, "first_inbox")), 1);
	json_decref(o);
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM inbox WHERE kind = 'submit' AND uid = %ld AND gid = %ld AND spec NOT LIKE '%%submitter%%'",
	         (long)geteuid(), (long)getegid());
	assert_int_equal(count_of(k.st, sql), 2);
	/* One bad line refuses the whole submission, naming it. */
	o = call(k.path, "{\"op\": \"submit\", \"src\": \"j.jsonl\", \"jobs\": ["
	                 "{\"line\": 1, \"text\": \"{\\\"class\\\": \\\"batch\\\", \\\"req\\\": {\\\"nodes\\\": 1, \\\"cores\\\": 1}, \\\"argv\\\": [\\\"true\\\"]}\"},"
	                 "{\"line\": 7, \"text\": \"{\\\"class\\\": \\\"batch\\\", \\\"req\\\": {\\\"nodes\\\": 1, \\\"cores\\\": 9999}, \\\"argv\\\": [\\\"true\\\"]}\"}]}");
	HAS(error_of(o), "j.jsonl:7: the request exceeds every node of the cluster");
	json_decref(o);
	assert_int_equal(count_of(k.st, "SELECT count(*) FROM inbox"), 2);
	/* Bad requests. */
	o = call(k.path, "not json");
	HAS(error_of(o), "expected one JSON object on one line");
	json_decref(o);
	o = call(k.path, "{\"op\": \"reboot\"}");
	HAS(error_of(o), "unknown operation 'reboot'");
	json_decref(o);
	o = call(k.path, "{\"op\": \"cancel\", \"jobs\": [4294967297]}");
	HAS(error_of(o), "jobs[0]: expected a job id 0..2147483646");
	json_decref(o);
	o = call(k.path, "{\"op\": \"approve\", \"tenants\": [\"nope\"]}");
	HAS(error_of(o), "no tenant 'nope'");
	json_decref(o);
	/* Cancel and approve (an operator: any job; tenants by name). */
	o = call(k.path, "{\"op\": \"cancel\", \"jobs\": [0, 1]}");
	assert_int_equal(json_integer_value(json_object_get(o, "queued")), 2);
	json_decref(o);
	o = call(k.path, "{\"op\": \"approve\", \"tenants\": [\"lab\", \"0\"]}");
	assert_int_equal(json_integer_value(json_object_get(o, "queued")), 2);
	json_decref(o);
	assert_int_equal(count_of(k.st, "SELECT count(*) FROM inbox WHERE kind = 'approve' AND job = 0"), 2);
	/* The queue, as text and as JSON. */
	o = call(k.path, "{\"op\": \"queue\", \"all\": true}");
	HAS(json_string_value(json_object_get(o, "text")), "0 jobs; 2 submitted and not yet taken by the daemon");
	json_decref(o);
	o = call(k.path, "{\"op\": \"queue\", \"json\": true}");
	assert_string_equal(json_string_value(json_object_get(o, "text")), "[]\n");
	json_decref(o);
	sk_stop(&k);
	/* Nobody there: absent. */
	bool absent = false;
	char err[256];
	assert_null(lsock_call("/nonexistent/hetlab.sock", "{}", &absent, err, sizeof err));
	assert_true(absent);
	HAS(err, "no daemon answers on this socket");
}

/* A client that connects and says nothing holds nobody up; one that sends
 * more than a request may be is refused. */
static void test_sock_slow_and_big(void **state)
{
	(void)state;
	struct sk k;
	sk_deadline_ms = 300000;
	sk_start(&k);
	sk_deadline_ms = 0;
	int silent = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof a.sun_path, "%s", k.path);
	assert_int_equal(connect(silent, (struct sockaddr *)&a, sizeof a), 0);
	json_t *o = call(k.path, "{\"op\": \"whoami\"}");
	assert_true(json_is_true(json_object_get(o, "ok")));
	json_decref(o);
	/* ... answered while the silent one is still open (not served in turn). */
	char c;
	assert_int_equal(recv(silent, &c, 1, MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	close(silent);
	/* More than LSOCK_REQ_MAX bytes without a newline. */
	size_t n = (size_t)LSOCK_REQ_MAX + 16;
	char *big = malloc(n + 1);
	memset(big, 'x', n);
	big[n] = 0;
	char err[256];
	char *r = lsock_call(k.path, big, NULL, err, sizeof err);
	free(big);
	if (!r)
		fail_msg("%s", err);
	HAS(r, "more than 33554432 bytes");
	free(r);
	sk_stop(&k);
}

/* The socket's path: a stale socket is replaced, a live one or a file is
 * not. */
static void test_sock_path(void **state)
{
	(void)state;
	struct sk k;
	sk_start(&k);
	char err[1024];
	struct lsock *s2;
	struct lsock_cfg c = { .path = k.path, .state_dir = k.st, .quiet = true };
	assert_int_equal(lsock_start(&s2, &c, err, sizeof err), -1);
	HAS(err, "another hetlab daemon answers on this socket");
	lsock_stop(k.s);
	/* A dead daemon's socket. */
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof a.sun_path, "%s", k.path);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	close(fd);
	if (lsock_start(&k.s, &c, err, sizeof err))
		fail_msg("%s", err);
	lsock_stop(k.s);
	write_file(k.path, "x", 0600);
	assert_int_equal(lsock_start(&s2, &c, err, sizeof err), -1);
	HAS(err, "exists and is not a socket: refused");
	unlink(k.path);
	/* A socket path too long. */
	char longp[200];
	memset(longp, 'a', sizeof longp - 1);
	longp[0] = '/';
	longp[sizeof longp - 1] = 0;
	c.path = longp;
	assert_int_equal(lsock_start(&s2, &c, err, sizeof err), -1);
	HAS(err, "a socket path is at most 107 bytes");
	k.s = NULL;
	sk_stop(&k);
}

/* Another user: sees only its own, may not cancel another's job or
 * approve (root only: the client runs as nobody). */
static void test_sock_other_user(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		skip();
		return;
	}
	struct sk k;
	sk_start(&k);
	assert_int_equal(chmod(k.d, 0755), 0);
	/* job 0, of root */
	char err[1024];
	struct lstate st;
	assert_int_equal(lstate_open(&st, k.st, err, sizeof err), 0);
	struct lstate_who root = { 0, 0, "root" };
	assert_int_equal(lstate_owner_put(&st, 0, &root, err, sizeof err), 0);
	lstate_close(&st);
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(3);
		static const char *const reqs[] = {
			"{\"op\": \"whoami\"}", "{\"op\": \"cancel\", \"jobs\": [0]}", "{\"op\": \"cancel\", \"jobs\": [5]}",
			"{\"op\": \"approve\", \"tenants\": [\"lab\"]}", "{\"op\": \"queue\", \"all\": true}",
		};
		for (int i = 0; i < 5; i++) {
			char e[256];
			char *r = lsock_call(k.path, reqs[i], NULL, e, sizeof e);
			dprintf(pfd[1], "%s\n", r ? r : e);
			free(r);
		}
		_exit(0);
	}
	close(pfd[1]);
	char buf[8192] = "";
	size_t n = 0;
	ssize_t r;
	while ((r = read(pfd[0], buf + n, sizeof buf - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = 0;
	close(pfd[0]);
	int wst;
	waitpid(pid, &wst, 0);
	assert_true(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
	HAS(buf, "\"uid\":65534");
	HAS(buf, "\"operator\":false");
	HAS(buf, "job 0 is not yours");
	HAS(buf, "job 5: no such job");
	HAS(buf, "only an operator may approve");
	HAS(buf, "0 jobs; 0 submitted");
	assert_int_equal(count_of(k.st, "SELECT count(*) FROM inbox"), 0);
	sk_stop(&k);
}

/* A request sent again with its rid (the client's retry) is answered
 * with its first reply and applied once; a malformed rid is refused. */
static void test_sock_rid(void **state)
{
	(void)state;
	struct sk k;
	sk_start(&k);
	static const char sub[] = "{\"op\": \"submit\", \"rid\": \"r-1\", \"jobs\": [{\"line\": 1, \"text\": "
	                          "\"{\\\"class\\\": \\\"batch\\\", \\\"req\\\": {\\\"nodes\\\": 1, \\\"cores\\\": 1},"
	                          " \\\"argv\\\": [\\\"true\\\"]}\"}]}";
	json_t *o = call(k.path, sub);
	assert_true(json_is_true(json_object_get(o, "ok")));
	assert_null(json_object_get(o, "again"));
	json_decref(o);
	o = call(k.path, sub);
	assert_true(json_is_true(json_object_get(o, "ok")));
	assert_true(json_is_true(json_object_get(o, "again")));
	assert_int_equal(json_integer_value(json_object_get(o, "first_inbox")), 1);
	json_decref(o);
	assert_int_equal(count_of(k.st, "SELECT count(*) FROM inbox"), 1);
	o = call(k.path, "{\"op\": \"cancel\", \"rid\": \"c-1\", \"jobs\": [0]}");
	json_decref(o);
	o = call(k.path, "{\"op\": \"cancel\", \"rid\": \"c-1\", \"jobs\": [0]}");
	assert_true(json_is_true(json_object_get(o, "again")));
	json_decref(o);
	assert_int_equal(count_of(k.st, "SELECT count(*) FROM inbox WHERE kind = 'cancel'"), 1);
	o = call(k.path, "{\"op\": \"cancel\", \"rid\": \"a b\", \"jobs\": [0]}");
	HAS(error_of(o), "$.rid: expected a request id of 1 to 64 letters");
	json_decref(o);
	assert_int_equal(count_of(k.st, "SELECT count(*) FROM inbox"), 2);
	sk_stop(&k);
}

/* A daemon that goes away mid-request: lsock_call says so, lsock_call_again
 * tries again and gets the answer of the daemon that came back. */
static void test_sock_retry(void **state)
{
	(void)state;
	char *d = tmpdir_new();
	char *path = path_in(d, "r.sock");
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(lfd, 8), 0);
	pid_t pid = fork();
	if (pid == 0) {
		/* Two connections closed unanswered, the third answered. (The
		 * parent's strings freed first: under make valgrind the child's
		 * leak report would be its exit status.) */
		free(path);
		free(d);
		int code = 0;
		for (int i = 0; i < 3 && !code; i++) {
			int c = accept(lfd, NULL, NULL);
			char buf[256];
			if (c < 0 || recv(c, buf, sizeof buf, 0) <= 0)
				code = 3;
			else if (i == 2 && write(c, "{\"ok\": true}\n", 13) != 13)
				code = 4;
			if (c >= 0)
				close(c);
		}
		_exit(code);
	}
	close(lfd);
	char err[512];
	bool absent = true;
	assert_null(lsock_call(path, "{\"op\": \"whoami\"}", &absent, err, sizeof err));
	assert_false(absent);
	HAS(err, "the daemon closed the connection without an answer");
	char *r = lsock_call_again(path, "{\"op\": \"whoami\"}", &absent, err, sizeof err);
	if (!r)
		fail_msg("%s", err);
	assert_string_equal(r, "{\"ok\": true}");
	free(r);
	int wst;
	waitpid(pid, &wst, 0);
	assert_true(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
	/* Nobody there at all: said at once, absent. */
	unlink(path);
	assert_null(lsock_call_again(path, "{}", &absent, err, sizeof err));
	assert_true(absent);
	free(path);
	tmpdir_free(d);
}

/* A socket in a directory others may write (sticky or not) is refused:
 * anyone could take its path while no daemon listens. */
static void test_sock_open_dir(void **state)
{
	(void)state;
	char *d = tmpdir_new();
	char *st = path_in(d, "st"), *open_ = path_in(d, "open"), *path = path_in(d, "open/s.sock");
	char err[1024];
	struct lstate l;
	if (lstate_open(&l, st, err, sizeof err))
		fail_msg("%s", err);
	lstate_close(&l);
	assert_int_equal(mkdir(open_, 0700), 0);
	struct lsock_cfg c = { .path = path, .state_dir = st, .quiet = true };
	struct lsock *s;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(chmod(open_, i ? 01777 : 01770), 0);
		assert_int_equal(lsock_start(&s, &c, err, sizeof err), -1);
		HAS(err, i ? "the socket's directory is writable by everyone (mode 1777), sticky or not: refused"
		           : "the socket's directory is writable by its group (mode 1770), sticky or not: refused");
	}
	assert_int_equal(chmod(open_, 0755), 0);
	if (lsock_start(&s, &c, err, sizeof err))
		fail_msg("%s", err);
	lsock_stop(s);
	free(path);
	free(open_);
	free(st);
	tmpdir_free(d);
}

/* ---- log lines ---- */

static void test_escape(void **state)
{
	(void)state;
	char out[256];
	/* A forged second line and a terminal escape sequence. */
	live_escape(out, sizeof out, "job 3 (x\nhetlab live: 2025-01-01T00:00:00.000Z info [0.000 s] end job 9 done\x1b[2J)");
	assert_string_equal(out, "job 3 (x\\nhetlab live: 2025-01-01T00:00:00.000Z info [0.000 s] end job 9 done\\x1b[2J)");
	assert_null(strchr(out, '\n'));
	live_escape(out, sizeof out, "tab\there\rcr\x7f" "del");
	assert_string_equal(out, "tab\\there\\rcr\\x7fdel");
	/* Valid UTF-8 passes; C1 controls (8-bit CSI), bidi overrides and
	 * invalid bytes do not. */
	live_escape(out, sizeof out, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82");
	assert_string_equal(out, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82");
	live_escape(out, sizeof out, "a\xc2\x9b" "31mb\xe2\x80\xae" "c\xff\xc3");
	assert_string_equal(out, "a\\u009b31mb\\u202ec\\xff\\xc3");
	live_escape(out, sizeof out, "\xc0\xaf \xed\xa0\x80");   /* overlong, a surrogate */
	assert_string_equal(out, "\\xc0\\xaf \\xed\\xa0\\x80");
	/* Cut to the buffer, never inside an escape. */
	char small[6];
	assert_int_equal(live_escape(small, sizeof small, "ab\ncd"), 5);
	assert_string_equal(small, "ab\\nc");
	assert_int_equal(live_escape(small, sizeof small, "abc\x01"), 3);
	assert_string_equal(small, "abc");
	live_escape(out, sizeof out, NULL);
	assert_string_equal(out, "");
}

static void test_log_prefix(void **state)
{
	(void)state;
	char p[128];
	/* 2025-03-01T09:30:00.123456Z */
	int64_t t = (int64_t)1740821400 * 1000000 + 123456;
	live_log_prefix(p, sizeof p, t, LIVE_WARN, 12.3456);
	assert_string_equal(p, "hetlab live: 2025-03-01T09:30:00.123Z warn [12.346 s] ");
	live_log_prefix(p, sizeof p, 0, LIVE_INFO, 0);
	assert_string_equal(p, "hetlab live: 1970-01-01T00:00:00.000Z info [0.000 s] ");
	live_log_prefix(p, sizeof p, 999, LIVE_ERROR, 1);
	HAS(p, ".000Z error [1.000 s] ");
	assert_string_equal(live_level_name((enum live_level)7), "info");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_log_prefix),
		cmocka_unit_test(test_reading_file),
		cmocka_unit_test(test_job_norm),
		cmocka_unit_test(test_sock_requests),
		cmocka_unit_test(test_sock_slow_and_big),
		cmocka_unit_test(test_sock_path),
		cmocka_unit_test(test_sock_other_user),
		cmocka_unit_test(test_sock_rid),
		cmocka_unit_test(test_sock_retry),
		cmocka_unit_test(test_sock_open_dir),
		cmocka_unit_test(test_statedir_prepare),
		cmocka_unit_test(test_statedir_files),
		cmocka_unit_test(test_statedir_other_user),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
