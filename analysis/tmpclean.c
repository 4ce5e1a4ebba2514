/* tmpclean — removal of temporary files on signals, and of stale ones. See
 * tmpclean.h. */
#include "analysis/tmpclean.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The registry (the one global: see tmpclean.h). */
static char *_Atomic slots[TMPCLEAN_SLOTS];
static _Atomic pid_t children[TMPCLEAN_SLOTS];
static atomic_bool installed;

static const int caught[] = { SIGINT, SIGTERM, SIGHUP };

/* Async-signal-safe only: unlink, kill, sigaction, sigprocmask, raise, _exit. */
static void on_signal(int sig)
{
	for (int i = 0; i < TMPCLEAN_SLOTS; i++) {
		char *p = atomic_load(&slots[i]);
		if (p)
			unlink(p);
	}
	for (int i = 0; i < TMPCLEAN_SLOTS; i++) {
		pid_t c = atomic_load(&children[i]);
		if (c > 0)
			kill(c, sig);
	}
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);   /* not reached: the default action of these signals ends the process */
}

int tmpclean_install(void)
{
	if (atomic_exchange(&installed, true))
		return 0;
	for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) {
		struct sigaction old, sa;
		if (sigaction(caught[i], NULL, &old) < 0)
			return -1;
		if (old.sa_handler == SIG_IGN)
			continue;   /* nohup, or a background job of a non-interactive shell */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t k = 0; k < sizeof caught / sizeof caught[0]; k++)
			sigaddset(&sa.sa_mask, caught[k]);   /* one handler at a time */
		if (sigaction(caught[i], &sa, NULL) < 0)
			return -1;
	}
	return 0;
}

int tmpclean_add(const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		return -1;
	for (int i = 0; i < TMPCLEAN_SLOTS; i++) {
		char *expect = NULL;
		if (atomic_compare_exchange_strong(&slots[i], &expect, copy))
			return i;
	}
	free(copy);
	return -1;
}

void tmpclean_drop(int slot)
{
	if (slot < 0 || slot >= TMPCLEAN_SLOTS)
		return;
	free(atomic_exchange(&slots[slot], NULL));
}

char *tmpclean_name(const char *path)
{
	char *s = NULL;
	if (asprintf(&s, "%s.tmp-%ld", path, (long)getpid()) < 0)
		return NULL;
	return s;
}

int tmpclean_watch(const char *path)
{
	char *tmp = tmpclean_name(path);
	if (!tmp)
		return -1;
	int slot = tmpclean_add(tmp);
	free(tmp);
	return slot;
}

void tmpclean_child(pid_t pid)
{
	for (int i = 0; i < TMPCLEAN_SLOTS && pid > 0; i++) {
		pid_t expect = 0;
		if (atomic_compare_exchange_strong(&children[i], &expect, pid))
			return;
	}
}

void tmpclean_child_done(pid_t pid)
{
	for (int i = 0; i < TMPCLEAN_SLOTS && pid > 0; i++) {
		pid_t expect = pid;
		if (atomic_compare_exchange_strong(&children[i], &expect, 0))
			return;
	}
}

/* The pid of a "BASE.tmp-PID" name, or 0 when name is not one. */
static long tmp_pid(const char *name, const char *base, size_t blen)
{
	if (strncmp(name, base, blen) != 0 || strncmp(name + blen, ".tmp-", 5) != 0)
		return 0;
	const char *d = name + blen + 5;
	if (*d < '1' || *d > '9' || strlen(d) > 9)
		return 0;
	char *end;
	long pid = strtol(d, &end, 10);
	return *end ? 0 : pid;
}

int tmpclean_stale(const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	char dir[4096];
	if (dlen + 2 > sizeof dir)
		return 0;
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(dlen ? dlen : 1), path);
	else
		snprintf(dir, sizeof dir, ".");
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t blen = strlen(base);
	int removed = 0, rc = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		long pid = tmp_pid(e->d_name, base, blen);
		if (pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;   /* alive (or not ours to ask about): keep it */
		char full[8192];
		snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
		if (unlink(full) == 0) {
			removed++;
		} else if (errno != ENOENT) {
			snprintf(err, errlen, "%s: cannot remove the stale temporary file of process %ld"
			         " (gone): %s", full, pid, strerror(errno));
			rc = -1;
			break;
		}
	}
	closedir(d);
	return rc < 0 ? -1 : removed;
}
