/* statedir — who may own a live state directory, how private it is, and
 * how the daemon opens files in it (docs/live.md "Security").
 *
 * A state holds what jobs run (argv, env where tokens live), their
 * outputs and the recording; whoever can write it decides what the daemon
 * runs. So the daemon accepts a state directory only when
 *   - every directory above it (of its real path) belongs to root or to
 *     the daemon's user and, unless it has the sticky bit, is writable by
 *     neither its group nor others (so nobody else can rename or replace
 *     the state), and no symbolic link on the path as given belongs to
 *     someone else;
 *   - the directory itself belongs to the daemon's user, is not a symbolic
 *     link planted by another user, and is writable by neither group nor
 *     others; it is created 0700 (0750 with its group set to the
 *     configured "state_group") and an older, looser mode is tightened;
 *   - each file of the state it opens is a regular file (never followed
 *     through a symbolic link: O_NOFOLLOW), belongs to the daemon's user,
 *     has one link (no hard link to a file elsewhere) and is writable by
 *     neither group nor others; the files it creates are 0600.
 * Every refusal says which path and what is wrong with it. Linux. */
#ifndef HL_LIVE_STATEDIR_H
#define HL_LIVE_STATEDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The daemon's check of its state directory `dir` (created when missing).
 * group: a group name for 0750, or NULL/"" for 0700. 0, or -1 with err. */
int lsdir_prepare(const char *dir, const char *group, char *err, size_t errlen);
/* A subdirectory of the state (jobs/, slurm/): created 0700 when missing,
 * else checked as the state directory itself is. 0, or -1 with err. */
int lsdir_subdir(const char *dir, const char *name, char *err, size_t errlen);
/* An existing file dir/name is checked (and made 0600); a missing one is
 * fine. 0, or -1 with err. */
int lsdir_check_file(const char *dir, const char *name, char *err, size_t errlen);
/* Opens dir/name with flags | O_NOFOLLOW | O_CLOEXEC (mode 0600 when it
 * creates) and checks what it opened as lsdir_check_file does. The
 * descriptor, or -1 with err. */
int lsdir_open(const char *dir, const char *name, int flags, char *err, size_t errlen);
/* The directories above path (a file the daemon makes outside its state,
 * such as its socket) as lsdir_prepare checks those above the state.
 * 0, or -1 with err. */
int lsdir_check_above(const char *path, char *err, size_t errlen);
/* The owner of dir (stat, following links): 0 with *uid, or -1 with err
 * ("no such state directory" when it does not exist). */
int lsdir_owner(const char *dir, uid_t *uid, char *err, size_t errlen);

#endif
