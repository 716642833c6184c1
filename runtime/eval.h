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
	int target;           /* TARGET_CPP, TARGET_PYTHON, TARGET_CUDA, TARGET_PTX */
	bool backward;        /* --backward: the candidate is (or is scored on) K.adj */
	unsigned long long seed; /* --seed: the first of the seeds */
	double cpu;           /* --timeout: CPU seconds per candidate run */
	long memory;          /* --memory: MiB per candidate run (0: none) */
	const char *batch;    /* --batch: the tasks (JSONL) */
	int jobs;             /* -j: tasks scored at once */
	const char *rectext;  /* batch: the record's JSON text (else read --record) */
	const char *candtext; /* batch: the candidate's text (else read cand) */
	const char *bundle;   /* --bundle: write the candidate into this GPU bundle */
	const char *score;    /* --score: the GPU bundle whose results to score */
	const char *results;  /* --results: what the bundle's run.sh wrote */
	const char *name;     /* --name: the candidate's name in the bundle */
} KevalOpts;

enum { TARGET_CPP, TARGET_PYTHON, TARGET_CUDA, TARGET_PTX };
extern const char *const keval_targets[4]; /* their names */

/* The folder of kpyc, kopt, kcpu and krun (keval's own). */
extern char keval_tooldir[PATH_MAX];

/* Score o's candidate against o's record: print (or write to o->out) one
 * verdict; 0 pass, 1 failed candidate, 2 bad record.  Leaves a scratch
 * folder for keval_cleanup(). */
int keval_score(const KevalOpts *o);
/* Build the python target's reference of record rectext (--backward or
 * not) in this process, for the keval_score() calls of its children (a
 * batch, before it forks them): they inherit the compiled code. */
void keval_preload(const char *rectext, bool backward);
/* Remove the scratch folder of the last keval_score(). */
void keval_cleanup(void);
/* Print (or write to o->out, atomically) verdict v, delete it; rc, or 2
 * when the file cannot be written. */
int keval_emit(const KevalOpts *o, cJSON *v, int rc);
/* Whether s can name a candidate in a bundle: [A-Za-z0-9_.-], at most 100
 * characters, not starting with a dot. */
bool keval_goodname(const char *s);
/* Write bundle dir's cands.mk, its make rules of every candidate in cand/
 * (a batch writes it once, at its end); 0, or -1 with errno. */
int keval_bundlemk(const char *dir);
/* Score every candidate of bundle o->score (cand/NAME.json) with the
 * results in o->results, records from o->record: one verdict line each,
 * by name.  0 all pass, 1 one failed, 2 bad usage or a bad record. */
int keval_scoreall(const KevalOpts *o);
/* The string member key of r, or NULL. */
const char *keval_getstr(const cJSON *r, const char *key);

#endif /* KPY_EVAL_H */
