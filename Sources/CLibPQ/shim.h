// libpq, the PostgreSQL project's C client, from the system's packages (libpq-dev on Debian).
#include <libpq-fe.h>

// Pipeline mode (statements sent together, their results read after) came with libpq 14.
// These wrappers compile against older versions too, where entering the mode fails and
// the caller sends statements one at a time.
static inline int ocd_pq_enter_pipeline_mode(PGconn *conn) {
#ifdef LIBPQ_HAS_PIPELINING
    return PQenterPipelineMode(conn);
#else
    (void)conn;
    return 0;
#endif
}

static inline int ocd_pq_exit_pipeline_mode(PGconn *conn) {
#ifdef LIBPQ_HAS_PIPELINING
    return PQexitPipelineMode(conn);
#else
    (void)conn;
    return 1;
#endif
}

static inline int ocd_pq_pipeline_sync(PGconn *conn) {
#ifdef LIBPQ_HAS_PIPELINING
    return PQpipelineSync(conn);
#else
    (void)conn;
    return 0;
#endif
}

// Whether a result is the pipeline's sync point (1), a statement skipped after an earlier
// one failed (2), or neither (0).
static inline int ocd_pq_pipeline_result_kind(const PGresult *result) {
#ifdef LIBPQ_HAS_PIPELINING
    switch (PQresultStatus(result)) {
    case PGRES_PIPELINE_SYNC: return 1;
    case PGRES_PIPELINE_ABORTED: return 2;
    default: return 0;
    }
#else
    (void)result;
    return 0;
#endif
}
