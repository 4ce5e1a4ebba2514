/* pagedrop — handing back the page cache of a growing file. See pagedrop.h. */
#include "analysis/pagedrop.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

void pagedrop_open(struct pagedrop *pd, const char *path, off_t step, int lag)
{
	pd->fd = step > 0 && lag >= 1 ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
	pd->step = step;
	pd->lag = lag;
	pd->flushed = pd->dropped = 0;
}

void pagedrop_tick(struct pagedrop *pd)
{
	struct stat st;
	if (pd->fd < 0 || fstat(pd->fd, &st) < 0)
		return;
	while (st.st_size - pd->flushed >= 2 * pd->step) {
		(void)sync_file_range(pd->fd, pd->flushed, pd->step, SYNC_FILE_RANGE_WRITE);
		pd->flushed += pd->step;
	}
	while (pd->flushed - pd->dropped >= (off_t)(pd->lag + 1) * pd->step) {
		(void)posix_fadvise(pd->fd, pd->dropped, pd->step, POSIX_FADV_DONTNEED);
		pd->dropped += pd->step;
	}
}

void pagedrop_close(struct pagedrop *pd)
{
	if (pd->fd >= 0)
		close(pd->fd);
	pd->fd = -1;
}
