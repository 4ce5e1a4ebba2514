/* check — invariant checks of the core: on in the sanitizer build (`make
 * asan` compiles with -DHL_CHECKS), off in the release build, where they
 * cost nothing. A broken invariant is a bug in hetlab, never bad input
 * (bad input gets an error message): the process prints what broke and
 * where, and aborts.
 *
 *   HL_CHECK(cond)   cond is not evaluated without HL_CHECKS (no side
 *                    effects in it);
 *   HL_VERIFY(expr)  expr is always evaluated; with HL_CHECKS it must be
 *                    true (a call whose failure would be a bug). */
#ifndef HL_CHECK_H
#define HL_CHECK_H

#ifdef HL_CHECKS
_Noreturn void hl_check_failed(const char *what, const char *file, int line, const char *func);
#define HL_CHECK(cond) ((cond) ? (void)0 : hl_check_failed(#cond, __FILE__, __LINE__, __func__))
#define HL_VERIFY(expr) ((expr) ? (void)0 : hl_check_failed(#expr, __FILE__, __LINE__, __func__))
#else
#define HL_CHECK(cond) ((void)0)
#define HL_VERIFY(expr) ((void)(expr))
#endif

#endif
