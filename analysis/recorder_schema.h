/* recorder_schema — the CREATE TABLE statements of a results file
 * (schema version RECORDER_SCHEMA_VERSION, analysis/recorder.h). */
#ifndef HL_RECORDER_SCHEMA_H
#define HL_RECORDER_SCHEMA_H

extern const char recorder_schema_sql[];

#endif
