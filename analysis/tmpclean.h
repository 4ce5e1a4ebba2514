/* tmpclean — temporary files that an interrupted command leaves behind.
 *
 * Every hetlab writer makes its output atomically: it writes "PATH.tmp-PID"
 * (tmpclean_name) and renames it over PATH at the end. Two things can leave
 * that temporary file behind, and this module handles both:
 *
 * - A signal. tmpclean_install() sets handlers for SIGINT, SIGTERM and SIGHUP
 *   (not for one the process inherited as ignored, as under nohup): the
 *   handler removes every temporary file registered with tmpclean_add() or
 *   tmpclean_watch(), sends the same signal to every child registered with
 *   tmpclean_child() (runs of a sweep or a plan), and then dies of the signal
 *   with the default action, so that the exit status a shell sees is the
 *   conventional 128 + the signal number. A command calls tmpclean_install()
 *   once at its start; a library that writes a temporary file registers it
 *   whether or not handlers are installed (without them nothing happens on a
 *   signal, which is what an embedding program with its own handlers wants).
 * - SIGKILL, a crash or a power cut: nothing runs then, so
 *   tmpclean_stale(PATH) removes the "PATH.tmp-PID" siblings whose process is
 *   gone, and the next writer of PATH calls it first.
 *
 * The registry is the one mutable global of the project, because a signal
 * handler can reach nothing else: a fixed table of slots written with C11
 * atomics, read by the handler with async-signal-safe calls only (unlink,
 * kill, sigaction, raise). It is meant for the single-threaded commands;
 * slots are taken and given back by the thread that writes the file.
 * Ownership: tmpclean_add copies the path; tmpclean_drop frees the copy. */
#ifndef HL_TMPCLEAN_H
#define HL_TMPCLEAN_H

#include <stddef.h>
#include <sys/types.h>

#define TMPCLEAN_SLOTS 64

/* Installs the handlers (idempotent). 0, or -1 when sigaction failed. */
int tmpclean_install(void);
/* Registers path for removal on a signal. A slot number >= 0, or -1 when
 * the table is full or memory is short (the file is then simply not
 * removed by a signal). */
int tmpclean_add(const char *path);
/* Forgets a slot (after the file was renamed or removed). -1 is a no-op. */
void tmpclean_drop(int slot);
/* "PATH.tmp-PID" for this process, malloc'd; NULL when out of memory. */
char *tmpclean_name(const char *path);
/* tmpclean_add(tmpclean_name(path)): for a writer in a library that names
 * its temporary file so but does not register it. */
int tmpclean_watch(const char *path);
/* Registers a child process to receive the signal that ends this one.
 * tmpclean_child_done forgets it (after waitpid). */
void tmpclean_child(pid_t pid);
void tmpclean_child_done(pid_t pid);
/* Removes every "PATH.tmp-N" whose process N no longer exists (and that is
 * not this process's). Returns how many were removed, or -1 with err when
 * one could not be removed. A directory that cannot be read is no error:
 * the writer then fails on it with a clearer message. */
int tmpclean_stale(const char *path, char *err, size_t errlen);

#endif
