/*
 * eval.h — keval's scoring (eval.c), used by its main and batch mode
 * (keval.c).  See keval(1).
 */
#ifndef KPY_EVAL_H
#define KPY_EVAL_H

#include <limits.h>
#include <stdbool.h>

#include <cJSON.h>

typedef struct KevalOpts {
	const char *record;   /* --record */
	const char *id;       /* --id: the record of a JSONL file */
	const char *cand;     /* the candidate's file, or "-" */
	const char *out;      /* -o */
	int target;           /* TARGET_CPP, TARGET_PYTHON */
	bool backward;        /* --backward: the candidate is (or is scored on) K.adj */
	unsigned long long seed; /* --seed: the first of the seeds */
	double cpu;           /* --timeout: CPU seconds per candidate run */
	long memory;          /* --memory: MiB per candidate run (0: none) */
	const char *batch;    /* --batch: the tasks (JSONL) */
	int jobs;             /* -j: tasks scored at once */
	const char *rectext;  /* batch: the record's JSON text (else read --record) */
	const char *candtext; /* batch: the candidate's text (else read cand) */
} KevalOpts;

enum { TARGET_CPP, TARGET_PYTHON };

/* The folder of kpyc, kopt, kcpu and krun (keval's own). */
extern char keval_tooldir[PATH_MAX];

/* Score o's candidate against o's record: print (or write to o->out) one
 * verdict; 0 pass, 1 failed candidate, 2 bad record.  Leaves a scratch
 * folder for keval_cleanup(). */
int keval_score(const KevalOpts *o);
/* Remove the scratch folder of the last keval_score(). */
void keval_cleanup(void);
/* Print (or write to o->out, atomically) verdict v, delete it; rc, or 2
 * when the file cannot be written. */
int keval_emit(const KevalOpts *o, cJSON *v, int rc);
/* The string member key of r, or NULL. */
const char *keval_getstr(const cJSON *r, const char *key);

#endif /* KPY_EVAL_H */
