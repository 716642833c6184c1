/*
 * keval — score a candidate implementation of a dataset record's kernel
 * against kpy's own reference (eval.c), one candidate or a batch of tasks.
 * See keval(1).
 *
 *   keval --record R.json [--target cpp|python] [--backward] [CAND]
 *   keval --record RECORDS.jsonl --batch TASKS.jsonl [-j N] [-o VERDICTS.jsonl]
 *   keval --record R --target cuda|ptx --bundle DIR [--name NAME] CAND...
 *   keval --record RECORDS.jsonl --score DIR --results RESULTS [--name NAME]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "ir.h"
#include "eval.h"

static void
usage(FILE *f)
{
	fprintf(f,
	        "usage: keval --record R.json [--target cpp|python] [--backward] [options] [CAND]\n"
	        "       keval --record RECORDS.jsonl --batch TASKS.jsonl [-j N] [-o VERDICTS.jsonl]\n"
	        "       keval --record R --target cuda|ptx --bundle DIR [--name NAME] [options] CAND...\n"
	        "       keval --record RECORDS.jsonl --score DIR --results RESULTS [--name NAME]\n"
	        "Score a candidate kernel against a dataset record's reference; print one JSON\n"
	        "verdict (see keval(1)).  CAND: a file, or - / none for standard input.\n"
	        "\n"
	        "  -r, --record=FILE    the record (a JSON object, or JSONL with --id)\n"
	        "      --id=ID          the record of FILE with this id\n"
	        "  -t, --target=T       cpp (kcpu's ABI, the default), python (Warp), cuda\n"
	        "                       (kcuda's entry) or ptx (kptx's ABI): cuda and ptx\n"
	        "                       through a GPU bundle (--bundle, then --score)\n"
	        "  -b, --backward       the candidate is the backward kernel K.adj (cpp), or is\n"
	        "                       scored on its gradients (python)\n"
	        "  -s, --seed=S         the first of the 3 seeds (default 1)\n"
	        "      --timeout=SEC    CPU seconds per candidate run (default 10)\n"
	        "      --memory=MIB     memory per candidate run (default 4096; 0: no limit)\n"
	        "  -o, --output=FILE    write the verdict to FILE\n"
	        "      --batch=TASKS    score each task of a JSONL file ({\"id\", \"target\",\n"
	        "                       \"backward\", \"candidate\", \"task\"}, records from --record):\n"
	        "                       one verdict line each, in order; with -o, resumes\n"
	        "  -j, --jobs=N         tasks scored at once (default 1)\n"
	        "      --bundle=DIR     cuda, ptx: write the candidate, keval's inputs and a host\n"
	        "                       program into DIR (no expected output); DIR/run.sh\n"
	        "                       RESULTS runs them where nvcc and a GPU are\n"
	        "      --name=NAME      the candidate's name in the bundle (default: its file's\n"
	        "                       name; in a batch, the task's \"task\", else tLINE)\n"
	        "      --score=DIR      score the results of bundle DIR's candidates: one verdict\n"
	        "                       line each (the one of --name)\n"
	        "      --results=DIR    what DIR/run.sh RESULTS wrote\n"
	        "  -h, --help           show this help\n"
	        "  -V, --version        show the version\n"
	        "\n"
	        "exit status: 0 pass, 1 the candidate failed, 2 bad usage or a bad record\n");
}

/* ---- batch mode ---------------------------------------------------- */

/* A record of the --record file: its id and its line. */
typedef struct RecLine {
	const char *id;
	const char *text;
} RecLine;

static int
reccmp(const void *a, const void *b)
{
	return strcmp(((const RecLine *)a)->id, ((const RecLine *)b)->id);
}

/* One task of the batch: its line, its verdict once scored. */
typedef struct Task {
	char *line;      /* the task's JSON text */
	char *verdict;   /* the verdict line (malloc'd), once known */
	pid_t pid;       /* the child scoring it, or 0 */
	char vpath[600]; /* where the child writes the verdict */
	char name[32];   /* its name in a bundle, when the task has none: tLINE */
} Task;

/* In a child: score task t, its verdict to t->vpath; exits. */
static void
batchchild(const KevalOpts *base, const RecLine *recs, size_t nrecs, const Task *t)
{
	KevalOpts o = *base;
	cJSON *task = cJSON_Parse(t->line), *v;
	const char *id, *target, *cand, *bad = NULL;
	RecLine key, *r = NULL;
	int rc;

	o.batch = NULL;
	o.out = t->vpath;
	id = task ? keval_getstr(task, "id") : NULL;
	target = task ? keval_getstr(task, "target") : NULL;
	cand = task ? keval_getstr(task, "candidate") : NULL;
	key.id = id;
	key.text = NULL;
	if (id)
		r = bsearch(&key, recs, nrecs, sizeof *recs, reccmp);
	if (!task)
		bad = "the task does not parse";
	else if (!id || !cand)
		bad = "the task lacks its record's id or its candidate";
	else if (!r)
		bad = "no record with this id";
	else if (!base->bundle && target && strcmp(target, "cpp") != 0 && strcmp(target, "python") != 0)
		bad = "the target is not cpp or python (cuda and ptx: --bundle)";
	else if (base->bundle && (!target || (strcmp(target, "cuda") != 0 && strcmp(target, "ptx") != 0)))
		bad = "the target is not cuda or ptx (the batch writes a bundle)";
	if (bad) {
		v = cJSON_CreateObject();
		cJSON_AddStringToObject(v, "error", bad);
		cJSON_AddBoolToObject(v, "pass", false);
		_exit(keval_emit(&o, v, 2));
	}
	o.target = TARGET_CPP;
	for (rc = 0; target && rc < 4; rc++)
		if (strcmp(target, keval_targets[rc]) == 0)
			o.target = rc;
	if (o.bundle) {
		const char *tn = keval_getstr(task, "task");
		o.name = tn && keval_goodname(tn) ? tn : t->name;
	}
	o.backward = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(task, "backward"));
	o.rectext = r->text;
	o.candtext = cand;
	rc = keval_score(&o);
	keval_cleanup();
	_exit(rc);
}

/* Score the tasks of o->batch, o->jobs at a time.  Verdicts in task
 * order, one line each, with the task's "line" (from 1) and its own "task"
 * field when it has one.  With -o, the complete verdict lines already in
 * the file are kept and their tasks skipped (resuming an interrupted
 * batch); each verdict is appended once its predecessors are. */
static int
batch(const KevalOpts *o)
{
	size_t rlen, tlen, nrecs = 0, i, ntasks = 0, done = 0, next, written;
	char *rtext, *ttext, *p, *save = NULL;
	RecLine *recs = NULL;
	Task *tasks = NULL;
	FILE *out = stdout;
	int running = 0, rc = 0;
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp || strlen(tmp) > 400)
		tmp = "/tmp";
	if (!(rtext = readfile(o->record, &rlen))) {
		fprintf(stderr, "keval: cannot read %s: %s\n", o->record, strerror(errno));
		return 2;
	}
	if (!(ttext = readfile(o->batch, &tlen))) {
		fprintf(stderr, "keval: cannot read %s: %s\n", o->batch, strerror(errno));
		free(rtext);
		return 2;
	}
	/* the records, sorted by id; the lines stay in rtext */
	for (p = strtok_r(rtext, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		cJSON *r = cJSON_Parse(p);
		const char *id = r ? keval_getstr(r, "id") : NULL;
		if (id) {
			recs = xrealloc(recs, sizeof *recs * (nrecs + 1));
			recs[nrecs].id = xstrdup(id);
			recs[nrecs].text = p;
			nrecs++;
		}
		cJSON_Delete(r);
	}
	if (nrecs)
		qsort(recs, nrecs, sizeof *recs, reccmp);
	save = NULL;
	for (p = strtok_r(ttext, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		tasks = xrealloc(tasks, sizeof *tasks * (ntasks + 1));
		memset(&tasks[ntasks], 0, sizeof *tasks);
		tasks[ntasks++].line = p;
	}
	/* resume: keep the complete verdict lines already written */
	if (o->out) {
		size_t olen = 0;
		char *old = readfile(o->out, &olen);
		if (old) {
			char *q = old;
			while (done < ntasks) {
				char *nl = strchr(q, '\n');
				cJSON *v;
				if (!nl)
					break;
				*nl = 0;
				if (!(v = cJSON_Parse(q)))
					break;
				cJSON_Delete(v);
				done++;
				q = nl + 1;
			}
			olen = (size_t)(q - old);
			free(old);
			if (truncate(o->out, (off_t)olen) < 0) {
				fprintf(stderr, "keval: cannot truncate %s: %s\n", o->out, strerror(errno));
				rc = 2;
				goto end;
			}
		}
		if (!(out = fopen(o->out, "a"))) {
			fprintf(stderr, "keval: cannot write %s: %s\n", o->out, strerror(errno));
			rc = 2;
			goto end;
		}
	}
	next = written = done;
	while (written < ntasks) {
		int st;
		pid_t pid;
		while (running < o->jobs && next < ntasks) {
			Task *t = &tasks[next];
			snprintf(t->vpath, sizeof t->vpath, "%s/keval.%ld.%zu.json", tmp, (long)getpid(), next);
			snprintf(t->name, sizeof t->name, "t%05zu", next + 1);
			if (!o->bundle) {
				/* a python task's reference: built here once per record */
				cJSON *task = cJSON_Parse(t->line);
				const char *id = task ? keval_getstr(task, "id") : NULL, *target = task ? keval_getstr(task, "target") : NULL;
				RecLine key, *r;
				key.id = id;
				key.text = NULL;
				if (id && target && strcmp(target, "python") == 0 &&
				    (r = bsearch(&key, recs, nrecs, sizeof *recs, reccmp)))
					keval_preload(r->text, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(task, "backward")));
				cJSON_Delete(task);
			}
			fflush(out);
			fflush(stdout);
			fflush(stderr);
			if ((t->pid = fork()) < 0) {
				fprintf(stderr, "keval: fork: %s\n", strerror(errno));
				rc = 2;
				goto end;
			}
			if (t->pid == 0)
				batchchild(o, recs, nrecs, t);
			running++;
			next++;
		}
		if ((pid = wait(&st)) < 0) {
			if (errno == EINTR)
				continue;
			rc = 2;
			break;
		}
		for (i = written; i < next; i++)
			if (tasks[i].pid == pid) {
				size_t vl;
				char *vt = readfile(tasks[i].vpath, &vl);
				cJSON *v = vt ? cJSON_Parse(vt) : NULL, *task = cJSON_Parse(tasks[i].line);
				const char *tn = task ? keval_getstr(task, "task") : NULL;
				if (!v) {
					v = cJSON_CreateObject();
					cJSON_AddStringToObject(v, "error", "the scoring process failed");
					cJSON_AddBoolToObject(v, "pass", false);
				}
				cJSON_AddNumberToObject(v, "line", (double)i + 1);
				if (tn)
					cJSON_AddStringToObject(v, "task", tn);
				tasks[i].verdict = cJSON_PrintUnformatted(v);
				tasks[i].pid = 0;
				cJSON_Delete(v);
				cJSON_Delete(task);
				free(vt);
				remove(tasks[i].vpath);
				running--;
				break;
			}
		while (written < next && tasks[written].verdict) {
			fprintf(out, "%s\n", tasks[written].verdict);
			fflush(out);
			free(tasks[written].verdict);
			tasks[written].verdict = NULL;
			written++;
		}
	}
end:
	while (running > 0 && wait(NULL) > 0)
		running--;
	if (o->bundle && keval_bundlemk(o->bundle) < 0) {
		fprintf(stderr, "keval: cannot write %s/cands.mk: %s\n", o->bundle, strerror(errno));
		rc = 2;
	}
	if (out != stdout && fclose(out) != 0) {
		fprintf(stderr, "keval: cannot write %s: %s\n", o->out, strerror(errno));
		rc = 2;
	}
	for (i = 0; i < ntasks; i++)
		free(tasks[i].verdict);
	for (i = 0; i < nrecs; i++)
		free((char *)recs[i].id);
	free(recs);
	free(tasks);
	free(rtext);
	free(ttext);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"record", required_argument, NULL, 'r'},
		{"id", required_argument, NULL, 'I'},
		{"target", required_argument, NULL, 't'},
		{"backward", no_argument, NULL, 'b'},
		{"seed", required_argument, NULL, 's'},
		{"timeout", required_argument, NULL, 'T'},
		{"memory", required_argument, NULL, 'M'},
		{"output", required_argument, NULL, 'o'},
		{"batch", required_argument, NULL, 'B'},
		{"jobs", required_argument, NULL, 'j'},
		{"bundle", required_argument, NULL, 'U'},
		{"score", required_argument, NULL, 'S'},
		{"results", required_argument, NULL, 'R'},
		{"name", required_argument, NULL, 'N'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	KevalOpts o;
	int c, rc;
	ssize_t n;
	char *end;

	progname = "keval";
	memset(&o, 0, sizeof o);
	o.seed = 1;
	o.cpu = 10;
	o.memory = 4096;
	o.cand = "-";
	o.jobs = 1;
	while ((c = getopt_long(argc, argv, "r:t:bs:o:j:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': o.record = optarg; break;
		case 'I': o.id = optarg; break;
		case 't':
			for (o.target = 0; o.target < 4 && strcmp(optarg, keval_targets[o.target]) != 0; o.target++)
				;
			if (o.target == 4) {
				fprintf(stderr, "keval: --target %s: cpp, python, cuda or ptx\n", optarg);
				return 2;
			}
			break;
		case 'b': o.backward = true; break;
		case 's':
			errno = 0;
			o.seed = strtoull(optarg, &end, 0);
			if (*end || errno || optarg[0] == '-' || !optarg[0]) {
				fprintf(stderr, "keval: bad --seed '%s'\n", optarg);
				return 2;
			}
			break;
		case 'T':
			o.cpu = strtod(optarg, &end);
			if (*end || !(o.cpu >= 1) || o.cpu > 3600) {
				fprintf(stderr, "keval: bad --timeout '%s' (1 to 3600 seconds)\n", optarg);
				return 2;
			}
			break;
		case 'M':
			errno = 0;
			o.memory = strtol(optarg, &end, 10);
			if (*end || errno || o.memory < 0 || o.memory > 1L << 24 || !optarg[0]) {
				fprintf(stderr, "keval: bad --memory '%s' (MiB, 0: no limit)\n", optarg);
				return 2;
			}
			break;
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "keval: -o wants a file name\n");
				return 2;
			}
			o.out = optarg;
			break;
		case 'B': o.batch = optarg; break;
		case 'U': o.bundle = optarg; break;
		case 'S': o.score = optarg; break;
		case 'R': o.results = optarg; break;
		case 'N':
			if (!keval_goodname(optarg)) {
				fprintf(stderr, "keval: bad --name '%s' ([A-Za-z0-9_.-], not starting with a dot)\n", optarg);
				return 2;
			}
			o.name = optarg;
			break;
		case 'j': {
			long v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 256) {
				fprintf(stderr, "keval: bad -j '%s' (1 to 256)\n", optarg);
				return 2;
			}
			o.jobs = (int)v;
			break;
		}
		case 'h': usage(stdout); return 0;
		case 'V': printf("keval (kpy) %s\n", KPY_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 < argc && !(o.bundle && !o.batch)) {
		fprintf(stderr, "keval: one candidate at most (several: --bundle)\n");
		usage(stderr);
		return 2;
	}
	if (optind < argc)
		o.cand = argv[optind];
	if (o.batch && optind < argc) {
		fprintf(stderr, "keval: --batch takes the candidates from its tasks, not %s\n", argv[optind]);
		return 2;
	}
	if (!o.record) {
		fprintf(stderr, "keval: which record? (--record R.json)\n");
		usage(stderr);
		return 2;
	}
	if (o.score && (o.bundle || o.batch || optind < argc || !o.results)) {
		fprintf(stderr, "keval: --score DIR takes --results RESULTS, and no candidate, --bundle or --batch\n");
		return 2;
	}
	if (!o.score && o.results) {
		fprintf(stderr, "keval: --results goes with --score\n");
		return 2;
	}
	if (!o.score && !o.bundle && (o.target == TARGET_CUDA || o.target == TARGET_PTX)) {
		fprintf(stderr, "keval: --target %s runs on a GPU: write a bundle (--bundle DIR), run its run.sh, "
		        "then keval --score DIR --results RESULTS\n", keval_targets[o.target]);
		return 2;
	}
	if (o.bundle && !o.batch && o.target != TARGET_CUDA && o.target != TARGET_PTX) {
		fprintf(stderr, "keval: --bundle is for --target cuda or ptx\n");
		return 2;
	}
	if (o.bundle && !o.batch && optind + 1 < argc && (o.name || o.out)) {
		fprintf(stderr, "keval: several candidates take their names from their files (no --name, no -o)\n");
		return 2;
	}
	n = readlink("/proc/self/exe", keval_tooldir, sizeof keval_tooldir - 1);
	if (n <= 0) {
		fprintf(stderr, "keval: cannot find its own folder: %s\n", strerror(errno));
		return 2;
	}
	keval_tooldir[n] = 0;
	if ((end = strrchr(keval_tooldir, '/')))
		*end = 0;
	signal(SIGPIPE, SIG_IGN);
	if (o.score) {
		/* one verdict line per candidate: -o gets them all */
		KevalOpts s = o;
		FILE *f = NULL;
		Buf tmp = {0};
		s.out = NULL;
		if (o.out) {
			bufprintf(&tmp, "%s.tmp%ld", o.out, (long)getpid());
			fflush(stdout);
			if (!(f = freopen(tmp.s, "w", stdout))) {
				fprintf(stderr, "keval: cannot write %s: %s\n", tmp.s, strerror(errno));
				return 2;
			}
		}
		rc = keval_scoreall(&s);
		if (f && (fflush(stdout) != 0 || ferror(stdout) || rename(tmp.s, o.out) != 0)) {
			fprintf(stderr, "keval: cannot write %s: %s\n", o.out, strerror(errno));
			remove(tmp.s);
			rc = 2;
		}
		buffree(&tmp);
	} else if (o.batch) {
		rc = batch(&o);
	} else if (o.bundle) {
		/* each candidate into the bundle, named after its file */
		int i;
		rc = 0;
		for (i = optind; i < argc || i == optind; i++) {
			KevalOpts c = o;
			char nm[128], *dot;
			int r;
			if (i < argc)
				c.cand = argv[i];
			if (!c.name) {
				snprintf(nm, sizeof nm, "%s", strrchr(c.cand, '/') ? strrchr(c.cand, '/') + 1 : c.cand);
				if ((dot = strrchr(nm, '.')) && dot != nm)
					*dot = 0;
				if (strcmp(c.cand, "-") == 0 || !keval_goodname(nm)) {
					fprintf(stderr, "keval: %s: name the candidate in the bundle (--name NAME)\n", c.cand);
					rc = 2;
					continue;
				}
				c.name = nm;
			}
			r = keval_score(&c);
			keval_cleanup();
			if (r > rc)
				rc = r;
		}
	} else {
		rc = keval_score(&o);
		keval_cleanup();
	}
	fflush(stdout);
	if (ferror(stdout)) {
		fprintf(stderr, "keval: error writing standard output\n");
		rc = 2;
	}
	return rc;
}
