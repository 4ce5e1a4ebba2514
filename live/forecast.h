/* forecast — when will each pending job of a live daemon start, and why
 * does it wait (docs/forecast.md).
 *
 * Every forecast_every seconds while jobs wait, the daemon fork()s a
 * child: it holds a copy-on-write copy of the engine and the policy. The
 * child runs the draws (live/fcdraw.h, the code the shadow shares): it forks one grandchild per draw; each detaches the live seam
 * (sim_live_detach: nothing reaches the executor, the state, the
 * recording or the socket: the grandchild has a recorder of its own and
 * writes only to its pipe), gives every running and pending job a run
 * time drawn from the predictor (live/predict.h), with its own seed, and
 * runs the engine forward until every job that waits now has started.
 * Draw 0 gives every job its time limit (what `squeue --start` assumes)
 * and collects the policy's reasons from its first pass (view.h
 * decide_note). The child writes each waiting job's p10 / p50 / p90 start
 * (over the draws 1..K) through a pipe; the daemon reads it between ticks
 * without blocking, and publishes it to the socket (`hetlab forecast`,
 * `hetlab why`) and to /metrics. Nothing is written to the state: a
 * forecast changes neither state.db nor the recording.
 *
 * The predictor learns from every job that ends, as the engine reports
 * it (the recorder, chained), in the recording's replay after a restart
 * as live. */
#ifndef HL_LIVE_FORECAST_H
#define HL_LIVE_FORECAST_H

#include <stddef.h>
#include <stdint.h>

struct live;
struct fcst;

/* Sets up the forecasts of L (before its recording is replayed, so that
 * the predictor learns its history) and chains the engine's recorder.
 * 0, or -1 (ENOMEM). */
int fcst_open(struct fcst **out, struct live *L);
/* Between ticks: reads a child's answer when it came, starts the next
 * forecast when one is due. Never blocks. */
void fcst_tick(struct fcst *f, struct live *L);
/* Appends the forecast's gauges to the metrics text buf[0..n) (grown);
 * the new length. */
long fcst_metrics(const struct fcst *f, char **buf, size_t *cap, long n);
/* Stops a child still running, gives L's engine its recorder back and
 * frees f (NULL: nothing). */
void fcst_close(struct fcst *f, struct live *L);

#endif
