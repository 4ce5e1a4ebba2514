/* statedir — the state directory's ownership and permission rules. See
 * statedir.h. */
#include "live/statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "alice (uid 1000)", or "uid 1000" without a passwd entry. */
static void who(uid_t uid, char *out, size_t len)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res)
		snprintf(out, len, "%s (uid %ld)", res->pw_name, (long)uid);
	else
		snprintf(out, len, "uid %ld", (long)uid);
}

static bool trusted_owner(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* The path made absolute (lexically; links are left as they are). */
static int absolute(const char *dir, char *out, size_t len, char *err, size_t errlen)
{
	if (dir[0] == '/') {
		if (snprintf(out, len, "%s", dir) >= (int)len)
			goto long_;
		return 0;
	}
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd)) {
		snprintf(err, errlen, "%s: cannot tell the current directory: %s", dir, strerror(errno));
		return -1;
	}
	if (snprintf(out, len, "%s/%s", cwd, dir) >= (int)len)
		goto long_;
	return 0;
long_:
	snprintf(err, errlen, "%s: path too long", dir);
	return -1;
}

/* No symbolic link on the path as given belongs to someone else (such a
 * link decides where the state really is). */
static int check_links(const char *abs, char *err, size_t errlen)
{
	char p[PATH_MAX];
	size_t n = strlen(abs);
	for (size_t i = 1; i <= n; i++) {
		if (abs[i] != '/' && abs[i] != 0)
			continue;
		memcpy(p, abs, i);
		p[i] = 0;
		struct stat sb;
		if (lstat(p, &sb) < 0)
			return 0;   /* the rest does not exist yet */
		if (S_ISLNK(sb.st_mode) && !trusted_owner(sb.st_uid)) {
			char w[128];
			who(sb.st_uid, w, sizeof w);
			snprintf(err, errlen, "%s: a symbolic link that belongs to %s leads to the state directory %s: "
			         "refused (its owner decides where the state is)", p, w, abs);
			return -1;
		}
	}
	return 0;
}

/* Every directory above real (a real path) belongs to root or to us and,
 * unless sticky, is writable by neither group nor others. */
static int check_ancestors(const char *real, const char *what, const char *state, char *err, size_t errlen)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s", real);
	for (;;) {
		char *slash = strrchr(p, '/');
		if (!slash)
			return 0;
		if (slash == p)
			slash[1] = 0;
		else
			*slash = 0;
		struct stat sb;
		if (stat(p, &sb) < 0) {
			snprintf(err, errlen, "%s: %s", p, strerror(errno));
			return -1;
		}
		char w[128];
		if (!trusted_owner(sb.st_uid)) {
			who(sb.st_uid, w, sizeof w);
			snprintf(err, errlen, "%s: the directory above the %s %s belongs to %s, who could replace it: refused "
			         "(keep it under directories of root or of the daemon's user)", p, what, state, w);
			return -1;
		}
		if ((sb.st_mode & (S_IWGRP | S_IWOTH)) && !(sb.st_mode & S_ISVTX)) {
			snprintf(err, errlen, "%s: the directory above the %s %s is writable by %s and has no sticky bit, "
			         "so anyone who can write it could replace it: refused", p, what, state,
			         sb.st_mode & S_IWOTH ? "everyone" : "its group");
			return -1;
		}
		if (p[1] == 0)
			return 0;
	}
}

/* The directory holding abs (an absolute path, which may not exist yet)
 * and every one above it, as check_ancestors. */
static int check_parent(const char *abs, const char *what, const char *name, char *err, size_t errlen)
{
	char parent[PATH_MAX], real[PATH_MAX], probe[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", abs);
	char *slash = strrchr(parent, '/');
	if (slash == parent)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	if (!realpath(parent, real)) {
		snprintf(err, errlen, "%s: cannot make the %s: %s: %s", name, what, parent, strerror(errno));
		return -1;
	}
	if (snprintf(probe, sizeof probe, "%s/x", strcmp(real, "/") ? real : "") >= (int)sizeof probe) {
		snprintf(err, errlen, "%s: path too long", name);
		return -1;
	}
	return check_ancestors(probe, what, name, err, errlen);
}

static int group_id(const char *group, gid_t *gid, char *err, size_t errlen)
{
	struct group gr, *res = NULL;
	char buf[8192];
	if (getgrnam_r(group, &gr, buf, sizeof buf, &res) != 0 || !res) {
		snprintf(err, errlen, "state_group \"%s\": no such group", group);
		return -1;
	}
	*gid = res->gr_gid;
	return 0;
}

/* The checks of an opened directory of the state; its mode tightened to
 * `mode` (and its group set to gid unless -1). */
static int check_dir_fd(int fd, const char *path, mode_t mode, gid_t gid, char *err, size_t errlen)
{
	struct stat sb;
	if (fstat(fd, &sb) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char w[128];
	if (sb.st_uid != geteuid()) {
		who(sb.st_uid, w, sizeof w);
		char me[128];
		who(geteuid(), me, sizeof me);
		snprintf(err, errlen, "%s: the state directory belongs to %s, not to the daemon's user %s: refused "
		         "(whoever owns it decides what the daemon runs)", path, w, me);
		return -1;
	}
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen, "%s: the state directory is writable by %s (mode %04o): refused (check what is in it, "
		         "then chmod 700 it)", path, sb.st_mode & S_IWOTH ? "everyone" : "its group",
		         (unsigned)(sb.st_mode & 07777));
		return -1;
	}
	if (gid != (gid_t)-1 && sb.st_gid != gid && fchown(fd, (uid_t)-1, gid) < 0) {
		snprintf(err, errlen, "%s: cannot give it group %ld: %s", path, (long)gid, strerror(errno));
		return -1;
	}
	if ((sb.st_mode & 07777) != mode && fchmod(fd, mode) < 0) {
		snprintf(err, errlen, "%s: cannot make it mode %04o: %s", path, (unsigned)mode, strerror(errno));
		return -1;
	}
	return 0;
}

int lsdir_prepare(const char *dir, const char *group, char *err, size_t errlen)
{
	gid_t gid = (gid_t)-1;
	if (group && group[0] && group_id(group, &gid, err, errlen))
		return -1;
	mode_t mode = gid != (gid_t)-1 ? 0750 : 0700;
	char abs[PATH_MAX], real[PATH_MAX];
	if (absolute(dir, abs, sizeof abs, err, errlen) || check_links(abs, err, errlen))
		return -1;
	struct stat sb;
	if (lstat(abs, &sb) < 0 && errno == ENOENT) {
		/* New: its parent must be safe before anything goes in. */
		if (check_parent(abs, "state", dir, err, errlen))
			return -1;
		if (mkdir(abs, mode) < 0 && errno != EEXIST) {
			snprintf(err, errlen, "%s: cannot create the state directory: %s", dir, strerror(errno));
			return -1;
		}
	}
	if (!realpath(abs, real)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (check_ancestors(real, "state", dir, err, errlen))
		return -1;
	int fd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", dir, errno == ENOTDIR ? "not a directory" : strerror(errno));
		return -1;
	}
	int rc = check_dir_fd(fd, dir, mode, gid, err, errlen);
	close(fd);
	return rc;
}

static int join(char *out, size_t len, const char *dir, const char *name, char *err, size_t errlen)
{
	if (snprintf(out, len, "%s/%s", dir, name) >= (int)len) {
		snprintf(err, errlen, "%s/%s: path too long", dir, name);
		return -1;
	}
	return 0;
}

int lsdir_subdir(const char *dir, const char *name, char *err, size_t errlen)
{
	char p[PATH_MAX];
	if (join(p, sizeof p, dir, name, err, errlen))
		return -1;
	if (mkdir(p, 0700) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", p, strerror(errno));
		return -1;
	}
	int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		struct stat sb;
		bool link_ = lstat(p, &sb) == 0 && S_ISLNK(sb.st_mode);
		snprintf(err, errlen, "%s: %s: refused", p, link_ ? "a symbolic link" : e == ENOTDIR
		         ? "not a directory" : strerror(e));
		return -1;
	}
	int rc = check_dir_fd(fd, p, 0700, (gid_t)-1, err, errlen);
	close(fd);
	return rc;
}

/* The checks of an opened file of the state; made 0600. */
static int check_file_fd(int fd, const char *path, char *err, size_t errlen)
{
	struct stat sb;
	if (fstat(fd, &sb) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char w[128];
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file: refused", path);
		return -1;
	}
	if (sb.st_uid != geteuid()) {
		who(sb.st_uid, w, sizeof w);
		snprintf(err, errlen, "%s: belongs to %s, not to the daemon's user: refused", path, w);
		return -1;
	}
	if (sb.st_nlink != 1) {
		snprintf(err, errlen, "%s: has %ld hard links (a link to a file elsewhere?): refused", path,
		         (long)sb.st_nlink);
		return -1;
	}
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen, "%s: writable by %s (mode %04o): refused", path,
		         sb.st_mode & S_IWOTH ? "everyone" : "its group", (unsigned)(sb.st_mode & 07777));
		return -1;
	}
	if ((sb.st_mode & 077) && fchmod(fd, 0600) < 0) {
		snprintf(err, errlen, "%s: cannot make it mode 0600: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int lsdir_open(const char *dir, const char *name, int flags, char *err, size_t errlen)
{
	char p[PATH_MAX];
	if (join(p, sizeof p, dir, name, err, errlen))
		return -1;
	/* Non-blocking so that a FIFO planted there cannot hang the open. */
	int fd = open(p, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
	if (fd < 0) {
		if (errno == ELOOP)
			snprintf(err, errlen, "%s: a symbolic link: refused (the daemon would write where it points)", p);
		else
			snprintf(err, errlen, "%s: %s", p, strerror(errno));
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (check_file_fd(fd, p, err, errlen) || fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		if (fl < 0)
			snprintf(err, errlen, "%s: %s", p, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int lsdir_check_file(const char *dir, const char *name, char *err, size_t errlen)
{
	char p[PATH_MAX];
	if (join(p, sizeof p, dir, name, err, errlen))
		return -1;
	struct stat sb;
	if (lstat(p, &sb) < 0 && errno == ENOENT)
		return 0;
	int fd = lsdir_open(dir, name, O_RDONLY, err, errlen);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int lsdir_owner(const char *dir, uid_t *uid, char *err, size_t errlen)
{
	struct stat sb;
	if (stat(dir, &sb) < 0) {
		if (errno == ENOENT)
			snprintf(err, errlen, "%s: no such state directory", dir);
		else
			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", dir);
		return -1;
	}
	*uid = sb.st_uid;
	return 0;
}

int lsdir_check_above(const char *path, char *err, size_t errlen)
{
	char abs[PATH_MAX];
	if (absolute(path, abs, sizeof abs, err, errlen) || check_links(abs, err, errlen))
		return -1;
	return check_parent(abs, "socket", path, err, errlen);
}
