/*
 * kpack — assemble, merge and check dataset records (JSON Lines, cJSON).
 *
 *   kpack record DIR [-o FILE]          one record from a kernel's work folder
 *   kpack shard [-o FILE] [--rejects FILE] DIR...
 *                                       records of accepted kernels, rejects apart
 *   kpack merge -o OUTDIR [--split T,V,E] [--rejects FILE...] SHARD.jsonl...
 *                                       deduplicate, split, stats.json, README.md
 *   kpack validate FILE.jsonl...        check every record against the schema
 *   kpack compare DIR1 DIR2 [--rtol R] [--atol A]
 *                                       the .npy files of two runs agree
 *   kpack export -o DIR FILE.jsonl...   each record's module as DIR/ID.py
 *   kpack gpu --table FILE [-o OUTDIR] DIR
 *                                       the GPU stage's results into DIR's records
 *
 * A kernel's work folder holds what the dataset build made for it:
 *   kernel.py kernel.kir                 the module and kpyc's kir (required)
 *   harness.py                           the script that runs the module (kgen's)
 *   fwd.cpp bwd.cpp fwd.cu bwd.cu standalone.cu kernel.ptx   (when made)
 *   meta     "key value" lines: seed, index, category, kernel, dim, description
 *   checks   "name pass|fail|skip [reason]" lines, in the order they ran
 * A kernel is accepted when no check failed and the checks every record
 * needs (REQUIRED below) ran.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "ir.h"
#include "npydir.h"
#include "meta.h"
#include "neardup.h"

/* The record schema's version, in every record's "schema": 2 = the module alone in
 * "python", the harness in "python_harness", a "description" (kpy(7)). */
#define SCHEMA_VERSION 2

static const char *const REQUIRED[] = {"kpyc", "kopt", "kcpu", "kcuda", "krun", "order"};
static const char *const CHECKNAMES[] = {"kpyc", "kopt", "kcpu", "kcuda", "kptx", "nvcc", "ptxas",
                                         "krun", "order", "gradcheck", "host"};
/* The GPU stage's checks (make dataset-gpu, then kpack gpu): kcuda's CUDA
 * through nvcc and kptx's PTX through the driver, forward and backward, on a
 * GPU.  Each is "pass", "fail: ...", "skip: ..." or "not run" (kpy(7)); a
 * record is written with "not run", and kpack gpu fills them in. */
static const char *const GPUCHECKS[] = {"gpu_cuda", "gpu_ptx"};
#define GPU_NOTRUN "not run"

static void
usage(FILE *f)
{
	fprintf(f,
	        "usage: kpack record DIR [-o FILE]\n"
	        "       kpack shard [-o FILE] [--rejects FILE] DIR...\n"
	        "       kpack merge -o OUTDIR [--split T,V,E] [--rejects FILE]... [--include DIR]\n"
	        "                   [--decontaminate DIR] SHARD.jsonl...\n"
	        "       kpack validate FILE.jsonl...\n"
	        "       kpack compare DIR1 DIR2 [--rtol R] [--atol A]\n"
	        "       kpack export -o DIR FILE.jsonl...\n"
	        "       kpack gpu --table FILE [-o OUTDIR] DIR\n"
	        "       kpack tasks [-o FILE] [--holdout=CAT,...] RECORDS.jsonl...\n"
	        "Assemble verified dataset records (JSON Lines) from the dataset build's\n"
	        "per-kernel folders, merge shards into a deduplicated, split dataset with\n"
	        "stats.json and a dataset card, and check records (see kpack(1)).\n"
	        "\n"
	        "  -o, --output=PATH   the output file (record, shard) or folder (merge)\n"
	        "      --rejects=FILE  shard: write rejected kernels here; merge: read them\n"
	        "      --split=T,V,E   merge: train/validation/test percentages (default 90,5,5)\n"
	        "      --include=DIR   merge: copy the runtime headers DIR/kpy/*.h to OUTDIR/include/kpy\n"
	        "      --decontaminate=DIR  merge: count records sharing 13-token n-grams with the .py\n"
	        "                      files under DIR (Warp's tests and examples)\n"
	        "      --rtol=R --atol=A  compare: tolerances (default 1e-5, 1e-6)\n"
	        "      --holdout=CATS  tasks: the split of these categories' tasks is 'heldout'\n"
	        "      --table=FILE    gpu: the GPU stage's results (RESULTS/table.txt of the bundle's run.sh)\n"
	        "  -h, --help          show this help\n"
	        "  -V, --version       show the version\n");
}

/* ---- small helpers ------------------------------------------------- */

static char *
slurp(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return readfile(path, NULL);
}

static int
countlines(const char *s)
{
	int n = 0;
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (*s == '\n')
			n++;
	return s[-1] == '\n' ? n : n + 1;
}

static void
hex16(char out[17], uint64_t h)
{
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* mkdir -p */
static int
mkdir_p(const char *path)
{
	char buf[4096], *p;

	snprintf(buf, sizeof buf, "%s", path);
	for (p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* The split (0 train, 1 val, 2 test) of hash h: one of 100 buckets. */
static int
splitno(uint64_t h, const int pct[3])
{
	int b = (int)(h % 100);

	return b < pct[0] ? 0 : b < pct[0] + pct[1] ? 1 : 2;
}

/* Its name. */
static const char *
splitof(uint64_t h, const int pct[3])
{
	static const char *const name[3] = {"train", "val", "test"};

	return name[splitno(h, pct)];
}

static int pct_default[3] = {90, 5, 5};

/* ---- record -------------------------------------------------------- */

typedef struct Rec {
	cJSON *json;      /* the record */
	cJSON *reject;    /* or the reject line */
	bool ok;
} Rec;

static cJSON *
rejectline(const char *meta, const char *check, const char *reason)
{
	cJSON *r = cJSON_CreateObject();
	char *v;
	const char *keys[] = {"kernel", "category"};
	size_t i;

	for (i = 0; i < countof(keys); i++) {
		v = meta ? metaget(meta, keys[i]) : NULL;
		cJSON_AddStringToObject(r, keys[i], v ? v : "");
		free(v);
	}
	v = meta ? metaget(meta, "seed") : NULL;
	cJSON_AddNumberToObject(r, "seed", v ? atof(v) : -1);
	free(v);
	v = meta ? metaget(meta, "index") : NULL;
	cJSON_AddNumberToObject(r, "index", v ? atof(v) : -1);
	free(v);
	cJSON_AddStringToObject(r, "check", check);
	cJSON_AddStringToObject(r, "reason", reason ? reason : "");
	return r;
}

/* Op histogram and normalized hash of the kir text; false if it does not parse. */
static bool
kirfacts(const char *kir, cJSON *ops, uint64_t *normhash)
{
	Src src = {"kernel.kir", kir, strlen(kir)};
	Diag d;
	Module *m;
	int counts[NOPS] = {0};
	Buf b = {0};
	uint32_t i;
	int k;
	FILE *null = fopen("/dev/null", "w");

	diaginit(&d);
	d.out = null ? null : stderr;
	m = parsekir(&src, &d);
	if (null)
		fclose(null);
	if (!m)
		return false;
	for (i = 0; i < m->nfuncs; i++) {
		/* walk every region of the function */
		Region *stack[1024];
		int sp = 0;
		stack[sp++] = &m->funcs[i]->body;
		while (sp) {
			Region *r = stack[--sp];
			uint32_t j;
			for (j = 0; j < r->n; j++) {
				Op *op = r->ops[j];
				int q;
				counts[op->code]++;
				for (q = 0; q < op->nregs && sp < 1024; q++)
					stack[sp++] = &op->regs[q];
			}
		}
	}
	for (k = 0; k < NOPS; k++)
		if (counts[k] && !(opinfo[k].flags & F_TERM))
			cJSON_AddNumberToObject(ops, opinfo[k].name, counts[k]);
	printnorm(&b, m);
	*normhash = hash64(b.s, b.n, 0);
	buffree(&b);
	modfree(m);
	return true;
}

static Rec
record(const char *dir)
{
	Rec r = {0};
	char *py = slurp(dir, "kernel.py"), *kir = slurp(dir, "kernel.kir");
	char *meta = slurp(dir, "meta"), *checks = slurp(dir, "checks"), *harness = slurp(dir, "harness.py");
	cJSON *o, *c, *cj, *mj, *lines, *ops, *dims;
	char h[17], id[20], *v, *line, *save = NULL;
	uint64_t normhash = 0, contenthash;
	size_t i;
	struct { const char *group, *key, *file; } code[] = {
		{"cpp", "forward", "fwd.cpp"}, {"cpp", "backward", "bwd.cpp"},
		{"cuda", "forward", "fwd.cu"}, {"cuda", "backward", "bwd.cu"},
		{"cuda", "standalone", "standalone.cu"},
	};
	char *texts[countof(code)];

	if (!py || !meta) {
		r.reject = rejectline(meta, "kgen", !py ? "no kernel.py" : "no meta file");
		goto out;
	}
	/* checks: the first failure decides; required checks must have run */
	{
		char *cp = checks ? xstrdup(checks) : xstrdup("");
		bool seen[countof(REQUIRED)] = {0};
		for (line = strtok_r(cp, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char name[64] = "", status[16] = "";
			int n = 0;
			sscanf(line, "%63s %15s %n", name, status, &n);
			for (i = 0; i < countof(REQUIRED); i++)
				if (strcmp(name, REQUIRED[i]) == 0 && strcmp(status, "pass") == 0)
					seen[i] = true;
			if (strcmp(status, "fail") == 0 && !r.reject)
				r.reject = rejectline(meta, name, n ? line + n : "");
		}
		for (i = 0; i < countof(REQUIRED) && !r.reject; i++)
			if (!seen[i])
				r.reject = rejectline(meta, REQUIRED[i], "the check did not pass (or did not run)");
		free(cp);
		if (r.reject)
			goto out;
	}
	if (!kir) {
		r.reject = rejectline(meta, "kpyc", "no kernel.kir");
		goto out;
	}
	ops = cJSON_CreateObject();
	if (!kirfacts(kir, ops, &normhash)) {
		cJSON_Delete(ops);
		r.reject = rejectline(meta, "kpyc", "kernel.kir does not parse");
		goto out;
	}
	contenthash = hash64(py, strlen(py), 0);
	o = cJSON_CreateObject();
	hex16(h, contenthash);
	snprintf(id, sizeof id, "k%s", h);
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddNumberToObject(o, "schema", SCHEMA_VERSION);
	v = metaget(meta, "seed");
	cJSON_AddNumberToObject(o, "seed", v ? atof(v) : 0);
	free(v);
	v = metaget(meta, "index");
	cJSON_AddNumberToObject(o, "index", v ? atof(v) : 0);
	free(v);
	v = metaget(meta, "category");
	cJSON_AddStringToObject(o, "category", v ? v : "");
	free(v);
	v = metaget(meta, "kernel");
	cJSON_AddStringToObject(o, "kernel", v ? v : "");
	free(v);
	dims = cJSON_AddArrayToObject(o, "dim");
	if ((v = metaget(meta, "dim"))) {
		char *p = v, *e;
		while (*p) {
			long x = strtol(p, &e, 10);
			if (e == p)
				break;
			cJSON_AddItemToArray(dims, cJSON_CreateNumber((double)x));
			p = *e == ',' ? e + 1 : e;
		}
		free(v);
	}
	v = metaget(meta, "description");
	cJSON_AddStringToObject(o, "description", v ? v : "");
	free(v);
	cJSON_AddStringToObject(o, "python", py);
	cJSON_AddStringToObject(o, "python_harness", harness ? harness : "");
	cJSON_AddStringToObject(o, "kir", kir);
	for (i = 0; i < countof(code); i++)
		texts[i] = slurp(dir, code[i].file);
	c = cJSON_AddObjectToObject(o, "cpp");
	cJSON_AddStringToObject(c, "forward", texts[0] ? texts[0] : "");
	cJSON_AddStringToObject(c, "backward", texts[1] ? texts[1] : "");
	c = cJSON_AddObjectToObject(o, "cuda");
	cJSON_AddStringToObject(c, "forward", texts[2] ? texts[2] : "");
	cJSON_AddStringToObject(c, "backward", texts[3] ? texts[3] : "");
	cJSON_AddStringToObject(c, "standalone", texts[4] ? texts[4] : "");
	v = slurp(dir, "kernel.ptx");
	cJSON_AddStringToObject(o, "ptx", v ? v : "");
	free(v);
	/* checks, in a fixed order: "pass", or "skip: reason" */
	cj = cJSON_AddObjectToObject(o, "checks");
	for (i = 0; i < countof(CHECKNAMES); i++) {
		char *cp = checks ? xstrdup(checks) : xstrdup(""), *st = NULL;
		const char *val = "skip: not run";
		char buf[512];
		for (line = strtok_r(cp, "\n", &st); line; line = strtok_r(NULL, "\n", &st)) {
			char name[64] = "", status[16] = "";
			int n = 0;
			sscanf(line, "%63s %15s %n", name, status, &n);
			if (strcmp(name, CHECKNAMES[i]) != 0)
				continue;
			if (strcmp(status, "pass") == 0)
				val = "pass";
			else {
				snprintf(buf, sizeof buf, "skip: %s", n ? line + n : "");
				val = buf;
			}
		}
		cJSON_AddStringToObject(cj, CHECKNAMES[i], val);
		free(cp);
	}
	for (i = 0; i < countof(GPUCHECKS); i++)
		cJSON_AddStringToObject(cj, GPUCHECKS[i], GPU_NOTRUN);
	mj = cJSON_AddObjectToObject(o, "meta");
	cJSON_AddItemToObject(mj, "ops", ops);
	lines = cJSON_AddObjectToObject(mj, "lines");
	cJSON_AddNumberToObject(lines, "python", countlines(py));
	cJSON_AddNumberToObject(lines, "kir", countlines(kir));
	cJSON_AddNumberToObject(lines, "cpp_forward", countlines(texts[0]));
	cJSON_AddNumberToObject(lines, "cuda_forward", countlines(texts[2]));
	cJSON_AddNumberToObject(lines, "cuda_backward", countlines(texts[3]));
	cJSON_AddStringToObject(mj, "content_hash", h);
	hex16(h, normhash);
	cJSON_AddStringToObject(mj, "kir_hash", h);
	cJSON_AddStringToObject(mj, "split", splitof(normhash, pct_default));
	for (i = 0; i < countof(code); i++)
		free(texts[i]);
	r.json = o;
	r.ok = true;
out:
	free(py);
	free(kir);
	free(meta);
	free(checks);
	free(harness);
	return r;
}

static void
putline(Buf *b, cJSON *j)
{
	char *s = cJSON_PrintUnformatted(j);
	if (!s)
		fatal("out of memory");
	bufputs(b, s);
	bufputc(b, '\n');
	free(s);
}

static int
cmdrecord(int argc, char **argv, const char *out, const char *rejects)
{
	Buf ok = {0}, rej = {0};
	int i, nrej = 0;

	for (i = 0; i < argc; i++) {
		Rec r = record(argv[i]);
		if (r.ok)
			putline(&ok, r.json);
		else {
			putline(&rej, r.reject);
			nrej++;
		}
		cJSON_Delete(r.json);
		cJSON_Delete(r.reject);
	}
	if (writefile(out, ok.s ? ok.s : "", ok.n) != 0)
		fatal("cannot write %s:", out ? out : "standard output");
	if (rejects && writefile(rejects, rej.s ? rej.s : "", rej.n) != 0)
		fatal("cannot write %s:", rejects);
	if (!rejects && rej.n)
		fputs(rej.s, stderr);
	buffree(&ok);
	buffree(&rej);
	return 0;
}

/* The class of a GPU check's value: 0 pass, 1 fail, 2 skip, 3 not run; -1
 * not a GPU check's value (NULL included). */
enum { GPU_PASS, GPU_FAIL, GPU_SKIP, GPU_NONE, GPU_NCLASS };
static const char *const GPUCLASS[GPU_NCLASS] = {"pass", "fail", "skip", "not_run"};

static int
gpuclass(const char *v)
{
	if (!v)
		return -1;
	if (strcmp(v, "pass") == 0)
		return GPU_PASS;
	if (strncmp(v, "fail: ", 6) == 0)
		return GPU_FAIL;
	if (strncmp(v, "skip: ", 6) == 0)
		return GPU_SKIP;
	if (strcmp(v, GPU_NOTRUN) == 0)
		return GPU_NONE;
	return -1;
}

/* How many records have each class of value, per GPU check. */
typedef struct GpuCounts {
	int n[countof(GPUCHECKS)][GPU_NCLASS];
} GpuCounts;

static bool
isgpucheck(const char *name)
{
	size_t i;

	for (i = 0; i < countof(GPUCHECKS); i++)
		if (strcmp(name, GPUCHECKS[i]) == 0)
			return true;
	return false;
}

/* ---- validate ------------------------------------------------------ */

static int
checkrecord(const char *file, int lineno, const char *text)
{
	cJSON *o = cJSON_Parse(text), *x, *y;
	int bad = 0;
	size_t i;
	/* what merge reads from meta.lines */
	const char *lines_keys[] = {"python", "cuda_forward"};
	const char *strs[] = {"id", "category", "kernel", "python", "kir", "ptx"};
	const char *nums[] = {"seed", "index"};
	const char *objs[][4] = {{"cpp", "forward", "backward", NULL}, {"cuda", "forward", "backward", "standalone"}};

#define BAD(...) do { fprintf(stderr, "%s:%d: error: ", file, lineno); fprintf(stderr, __VA_ARGS__); \
	fputc('\n', stderr); bad++; } while (0)
	if (!o || !cJSON_IsObject(o)) {
		BAD("not a JSON object");
		cJSON_Delete(o);
		return 1;
	}
	for (i = 0; i < countof(strs); i++)
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, strs[i])))
			BAD("\"%s\" must be a string", strs[i]);
	for (i = 0; i < countof(nums); i++)
		if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, nums[i])))
			BAD("\"%s\" must be a number", nums[i]);
	x = cJSON_GetObjectItemCaseSensitive(o, "dim");
	if (!cJSON_IsArray(x) || cJSON_GetArraySize(x) < 1 || cJSON_GetArraySize(x) > 4)
		BAD("\"dim\" must be an array of 1 to 4 extents");
	for (i = 0; i < countof(objs); i++) {
		cJSON *g = cJSON_GetObjectItemCaseSensitive(o, objs[i][0]);
		int k;
		if (!cJSON_IsObject(g)) {
			BAD("\"%s\" must be an object", objs[i][0]);
			continue;
		}
		for (k = 1; k < 4 && objs[i][k]; k++)
			if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(g, objs[i][k])))
				BAD("\"%s.%s\" must be a string", objs[i][0], objs[i][k]);
		x = cJSON_GetObjectItemCaseSensitive(g, "forward");
		if (cJSON_IsString(x) && !*x->valuestring)
			BAD("\"%s.forward\" is empty", objs[i][0]);
	}
	x = cJSON_GetObjectItemCaseSensitive(o, "python");
	if (cJSON_IsString(x) && !strstr(x->valuestring, "@wp.kernel"))
		BAD("\"python\" has no @wp.kernel");
	x = cJSON_GetObjectItemCaseSensitive(o, "kir");
	if (cJSON_IsString(x) && strncmp(x->valuestring, "kir 1\n", 6) != 0)
		BAD("\"kir\" does not start with the kir header");
	x = cJSON_GetObjectItemCaseSensitive(o, "checks");
	if (!cJSON_IsObject(x))
		BAD("\"checks\" must be an object");
	else {
		for (i = 0; i < countof(CHECKNAMES); i++) {
			cJSON *c = cJSON_GetObjectItemCaseSensitive(x, CHECKNAMES[i]);
			if (!cJSON_IsString(c) || (strcmp(c->valuestring, "pass") != 0 && strncmp(c->valuestring, "skip", 4) != 0))
				BAD("check \"%s\" must be \"pass\" or \"skip: reason\"", CHECKNAMES[i]);
		}
		for (i = 0; i < countof(REQUIRED); i++) {
			cJSON *c = cJSON_GetObjectItemCaseSensitive(x, REQUIRED[i]);
			if (cJSON_IsString(c) && strcmp(c->valuestring, "pass") != 0)
				BAD("required check \"%s\" did not pass", REQUIRED[i]);
		}
		for (i = 0; i < countof(GPUCHECKS); i++) {
			cJSON *c = cJSON_GetObjectItemCaseSensitive(x, GPUCHECKS[i]);
			if (c && gpuclass(cJSON_GetStringValue(c)) < 0)
				BAD("check \"%s\" must be \"pass\", \"fail: ...\", \"skip: ...\" or \"" GPU_NOTRUN "\"",
				    GPUCHECKS[i]);
		}
		/* merge counts every member */
		cJSON_ArrayForEach(y, x)
			if (!cJSON_IsString(y))
				BAD("check \"%s\" must be a string", y->string);
	}
	x = cJSON_GetObjectItemCaseSensitive(o, "meta");
	if (!cJSON_IsObject(x))
		BAD("\"meta\" must be an object");
	else {
		cJSON *s = cJSON_GetObjectItemCaseSensitive(x, "split");
		cJSON *ops = cJSON_GetObjectItemCaseSensitive(x, "ops"), *lines = cJSON_GetObjectItemCaseSensitive(x, "lines");
		if (!cJSON_IsObject(ops))
			BAD("\"meta.ops\" must be an object");
		else
			cJSON_ArrayForEach(y, ops)
				if (!cJSON_IsNumber(y))
					BAD("\"meta.ops.%s\" must be a number", y->string);
		if (!cJSON_IsObject(lines))
			BAD("\"meta.lines\" must be an object");
		else
			for (i = 0; i < countof(lines_keys); i++)
				if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(lines, lines_keys[i])))
					BAD("\"meta.lines.%s\" must be a number", lines_keys[i]);
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(x, "kir_hash")) ||
		    strlen(cJSON_GetObjectItemCaseSensitive(x, "kir_hash")->valuestring) != 16)
			BAD("\"meta.kir_hash\" must be 16 hex digits");
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(x, "content_hash")))
			BAD("\"meta.content_hash\" must be a string");
		if (!cJSON_IsString(s) || (strcmp(s->valuestring, "train") && strcmp(s->valuestring, "val") &&
		                           strcmp(s->valuestring, "test")))
			BAD("\"meta.split\" must be train, val or test");
	}
#undef BAD
	cJSON_Delete(o);
	return bad;
}

static int
cmdvalidate(int argc, char **argv)
{
	int i, bad = 0, n = 0;

	for (i = 0; i < argc; i++) {
		char *text = readfile(argv[i], NULL), *line, *save = NULL;
		int lineno = 0;
		if (!text) {
			fprintf(stderr, "kpack: cannot read %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		/* split on newlines by hand: empty lines are errors too */
		for (line = text; *line; line = save) {
			char *e = strchr(line, '\n');
			save = e ? e + 1 : line + strlen(line);
			if (e)
				*e = 0;
			lineno++;
			n++;
			bad += checkrecord(argv[i], lineno, line) ? 1 : 0;
		}
		free(text);
	}
	printf("kpack: %d records, %d invalid\n", n, bad);
	return bad ? 1 : 0;
}

/* ---- export ------------------------------------------------------- */

/* Each valid record's module as DIR/ID.py (the dataset's GPU bundle). */
static int
cmdexport(int argc, char **argv, const char *dir)
{
	int i, n = 0;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "kpack: cannot make %s: %s\n", dir, strerror(errno));
		return 2;
	}
	for (i = 0; i < argc; i++) {
		char *text = readfile(argv[i], NULL), *line, *save = NULL;
		int lineno = 0;
		if (!text) {
			fprintf(stderr, "kpack: cannot read %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		for (line = text; *line; line = save) {
			char *e = strchr(line, '\n'), path[4096];
			const char *id, *py;
			cJSON *o;
			save = e ? e + 1 : line + strlen(line);
			if (e)
				*e = 0;
			lineno++;
			if (checkrecord(argv[i], lineno, line)) {
				free(text);
				return 1;
			}
			o = cJSON_Parse(line);
			id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "id"));
			py = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "python"));
			if (strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(id) || !*id) {
				fprintf(stderr, "%s:%d: error: record id '%s' is not a file name\n", argv[i], lineno, id);
				cJSON_Delete(o);
				free(text);
				return 1;
			}
			snprintf(path, sizeof path, "%s/%s.py", dir, id);
			if (writefile(path, py, strlen(py)) != 0)
				fatal("cannot write %s:", path);
			cJSON_Delete(o);
			n++;
		}
		free(text);
	}
	printf("kpack: %d modules -> %s\n", n, dir);
	return 0;
}

/* ---- merge --------------------------------------------------------- */

typedef struct Stats {
	cJSON *bycat;      /* category -> {records, train, val, test} */
	cJSON *checks;     /* check -> {pass, skip} over accepted records */
	cJSON *rejects;    /* check -> {category -> count} */
	cJSON *ops;        /* op -> count */
	int *pylines, *culines, n, cap;
	int *pytok, *cutok, *ptxtok;  /* tokens (neardup's lexical cut) per record */
	double tokens[3];             /* their totals */
	int records, dups, nrejects;
	int split[3];
	int neardups;      /* records in a near-duplicate cluster they do not head */
	int nearclusters;  /* clusters of more than one record */
	int moved;         /* records whose split is their cluster's, not their own */
	int reffiles;      /* decontamination: reference .py files read (0: not run) */
	int overlapping;   /* records sharing a 13-token n-gram with the reference */
	int contaminated;  /* records with CONTAMINATED of their n-grams there, or more */
	double maxshare;   /* the largest share of a record's n-grams found there */
	GpuCounts gpu;     /* the GPU checks' values by class */
} Stats;

static void
bump(cJSON *obj, const char *key, int by)
{
	cJSON *x = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!x)
		cJSON_AddNumberToObject(obj, key, by);
	else
		cJSON_SetNumberValue(x, x->valuedouble + by);
}

static cJSON *
sub(cJSON *obj, const char *key)
{
	cJSON *x = cJSON_GetObjectItemCaseSensitive(obj, key);
	return x ? x : cJSON_AddObjectToObject(obj, key);
}

static int
cmpint(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static cJSON *
percentiles(int *v, int n)
{
	cJSON *p = cJSON_CreateObject();
	if (n == 0)
		return p;
	qsort(v, (size_t)n, sizeof *v, cmpint);
	cJSON_AddNumberToObject(p, "min", v[0]);
	cJSON_AddNumberToObject(p, "p10", v[n / 10]);
	cJSON_AddNumberToObject(p, "p50", v[n / 2]);
	cJSON_AddNumberToObject(p, "p90", v[(n * 9) / 10]);
	cJSON_AddNumberToObject(p, "max", v[n - 1]);
	return p;
}

/* A set of 64-bit hashes (open addressing; 0 is never a key: stored +1). */
typedef struct HSet {
	uint64_t *k;
	size_t n, cap;
} HSet;

static bool
hsetadd(HSet *s, uint64_t h)
{
	size_t i;
	h += 1;
	if (2 * (s->n + 1) > s->cap) {
		HSet t = {0};
		t.cap = s->cap ? 2 * s->cap : 1024;
		t.k = xcalloc(t.cap, sizeof *t.k);
		for (i = 0; i < s->cap; i++)
			if (s->k[i])
				hsetadd(&t, s->k[i] - 1);
		free(s->k);
		*s = t;
	}
	for (i = (size_t)(h * 0x9e3779b97f4a7c15ull) & (s->cap - 1); s->k[i]; i = (i + 1) & (s->cap - 1))
		if (s->k[i] == h)
			return false;
	s->k[i] = h;
	s->n++;
	return true;
}

/* Decontamination: every .py file under dir (symbolic links not followed)
 * into the n-gram set g; returns the number of files. */
static int
addrefs(NGrams *g, const char *dir, int depth)
{
	DIR *d;
	struct dirent *e;
	int n = 0;

	if (depth > 64 || !(d = opendir(dir)))
		return depth ? 0 : -1;
	while ((e = readdir(d))) {
		char path[4096];
		struct stat sb;
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path || lstat(path, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			n += addrefs(g, path, depth + 1);
		} else if (S_ISREG(sb.st_mode) && l > 3 && strcmp(e->d_name + l - 3, ".py") == 0) {
			size_t len;
			char *text = readfile(path, &len);

			if (!text)
				fatal("cannot read %s:", path);
			ng_addtext(g, text);
			free(text);
			n++;
		}
	}
	closedir(d);
	return n;
}

/* Decontamination: the share of a record's n-grams found in the reference
 * that counts it as contaminated (a shared boilerplate line is not). */
#define CONTAMINATED 0.1

/* Near duplicates: the least estimated Jaccard similarity that joins two records. */
#define NEAR_THRESHOLD 0.8

/* The card's section on the GPU checks, from their counts n and the GPU the
 * table names (NULL: not known); kpack gpu replaces it in place. */
#define GPU_SECTION "## GPU check\n"
static void
gpucard(Buf *b, const GpuCounts *c, const char *device)
{
	size_t i;
	int k, all = 0, notrun = 0;

	bufputs(b, GPU_SECTION "\n");
	for (i = 0; i < countof(GPUCHECKS); i++)
		for (k = 0; k < GPU_NCLASS; k++) {
			all += c->n[i][k];
			notrun += k == GPU_NONE ? c->n[i][k] : 0;
		}
	if (notrun == all) {
		bufputs(b, "Not run: every record's `gpu_cuda` and `gpu_ptx` is `not run`.  `make dataset-gpu`\n"
		           "writes a folder that runs every record on a GPU with only nvcc and a shell, and\n"
		           "`make dataset-gpu-import GPU_RESULTS=DIR` (`kpack gpu`) writes its results into\n"
		           "the records, `stats.json` and this card.\n\n");
		return;
	}
	bufputs(b, "The GPU stage (`make dataset-gpu`, then `make dataset-gpu-import`) ran the\n"
	           "records' forward and backward kernels on a GPU");
	if (device)
		bufprintf(b, " (%s)", device);
	bufputs(b, ", through\nkcuda's CUDA compiled by nvcc (`gpu_cuda`) and through kptx's PTX loaded by the\n"
	           "CUDA driver (`gpu_ptx`), on krun's inputs, and compared them with krun's outputs:\n\n"
	           "| check | pass | fail | skip | not run |\n|---|---|---|---|---|\n");
	for (i = 0; i < countof(GPUCHECKS); i++)
		bufprintf(b, "| `%s` | %d | %d | %d | %d |\n", GPUCHECKS[i], c->n[i][GPU_PASS], c->n[i][GPU_FAIL],
		          c->n[i][GPU_SKIP], c->n[i][GPU_NONE]);
	bufputs(b, "\nA record that failed is kept, marked `fail: ...` in its `checks` and listed in\n"
	           "`stats.json` (`gpu.failed`); the records proven on a GPU are those whose\n"
	           "`gpu_cuda` (or `gpu_ptx`) is `pass`.\n\n");
}

static void
writecard(const char *dir, const Stats *st, const cJSON *stats)
{
	Buf b = {0};
	char path[4096];
	cJSON *c;

	/* YAML front matter: what `datasets.load_dataset(OUT)` and the Hub read;
	 * a split with no record is left out (a loader fails on an empty one) */
	{
		static const char *const file[3] = {"train.jsonl", "val.jsonl", "test.jsonl"};
		static const char *const name[3] = {"train", "validation", "test"};
		int k;

		bufputs(&b, "---\nlicense: apache-2.0\npretty_name: kpy Warp to CUDA kernels\n"
		            "language:\n- en\ntags:\n- code\n- cuda\n- ptx\n- nvidia-warp\n- autodiff\n"
		            "task_categories:\n- text-generation\nsize_categories:\n- ");
		bufputs(&b, st->records < 1000 ? "n<1K" : st->records < 10000 ? "1K<n<10K" : st->records < 100000 ? "10K<n<100K"
		            : st->records < 1000000 ? "100K<n<1M" : "1M<n<10M");
		bufputs(&b, "\nconfigs:\n- config_name: default\n  data_files:\n");
		for (k = 0; k < 3; k++)
			if (st->split[k])
				bufprintf(&b, "  - split: %s\n    path: %s\n", name[k], file[k]);
		bufputs(&b, "---\n\n");
	}
	bufprintf(&b,
	          "# kpy Warp→CUDA dataset\n\n"
	          "Pairs of NVIDIA Warp kernels (Python) and the code the kpy compiler makes\n"
	          "from them: kir (kpy's IR), C++ for the CPU and CUDA C++ (forward and\n"
	          "backward, reverse-mode autodiff), a standalone CUDA program, and PTX.\n"
	          "Every record passed the checks listed below.\n\n"
	          "## Contents\n\n"
	          "| split | records |\n|---|---|\n| train | %d |\n| val | %d |\n| test | %d |\n\n"
	          "%d records after removing %d duplicates; %d kernels were rejected by a check\n"
	          "(`stats.json` gives the counts by check and category).\n\n"
	          "Near duplicates: %d records are, by MinHash of 5-token shingles of their Python\n"
	          "(estimated Jaccard similarity %.2f or more), near duplicates of an earlier record,\n"
	          "in %d groups; each group is kept in one split, its first record's (%d records\n"
	          "moved), so that no split holds a near copy of another's kernel.\n\n",
	          st->split[0], st->split[1], st->split[2], st->records, st->dups, st->nrejects,
	          st->neardups, NEAR_THRESHOLD, st->nearclusters, st->moved);
	if (st->reffiles)
		bufprintf(&b, "Decontamination: %d records share at least one 13-token n-gram of their Python\n"
		          "with the %d reference files (NVIDIA Warp's own tests and examples, as given to\n"
		          "`kpack merge --decontaminate`); %d have %.0f%% of their n-grams or more there; the\n"
		          "largest share of one record's n-grams found there is %.3f.\n\n",
		          st->overlapping, st->reffiles, st->contaminated, 100 * CONTAMINATED, st->maxshare);
	else
		bufputs(&b, "Decontamination: not run (`kpack merge --decontaminate DIR`, `make dataset WARP_SRC=DIR`).\n\n");
	bufputs(&b, "| category | records |\n|---|---|\n");
	cJSON_ArrayForEach(c, st->bycat)
		bufprintf(&b, "| %s | %d |\n", c->string,
		          (int)cJSON_GetObjectItemCaseSensitive(c, "records")->valuedouble);
	bufputs(&b,
	        "\n## Fields (one JSON object per line)\n\n"
	        "| field | meaning |\n|---|---|\n"
	        "| `id` | `k` + 16 hex digits of the FNV-1a hash of the Python source |\n"
	        "| `schema` | the record schema's version (2) |\n"
	        "| `seed`, `index` | `kgen --seed SEED --start INDEX --count 1` rebuilds the module |\n"
	        "| `category` | the kgen generator that made it (`kgen --list`) |\n"
	        "| `kernel` | the kernel's name; `dim`: the launch extents it was run with |\n"
	        "| `description` | one sentence: what the kernel computes |\n"
	        "| `python` | the module alone (imports, structs, helpers, the kernel), as a person writes it |\n"
	        "| `python_harness` | a script that runs it: `python3 harness.py module.py` (needs warp-lang, numpy) |\n"
	        "| `kir` | kpyc's output (see kir(5)) |\n"
	        "| `cpp.forward`, `cpp.backward` | kcpu's C++ for the forward kernel and for the backward kernel `K.adj` |\n"
	        "| `cuda.forward`, `cuda.backward` | kcuda's CUDA C++: `extern \"C\" __global__` grid-stride kernels |\n"
	        "| `cuda.standalone` | a complete CUDA program that runs the kernel on seeded inputs and writes .npy files |\n"
	        "| `ptx` | kptx's PTX (LLVM NVPTX back end), sm_80 |\n"
	        "| `checks` | each check: `pass`, or `skip: reason`; the GPU checks also `fail: ...` or `not run` (see below) |\n"
	        "| `meta.ops` | how many times each kir operation occurs |\n"
	        "| `meta.lines` | line counts of the texts |\n"
	        "| `meta.content_hash` | FNV-1a 64 of the Python source |\n"
	        "| `meta.kir_hash` | FNV-1a 64 of the normalized kir (`kopt --normalized`: value, function, struct and field names, locations and constants canonicalized) |\n"
	        "| `meta.split` | train/val/test, from `kir_hash` (so a kernel never lands in two splits) |\n"
	        "\nThe runtime headers the C++ and CUDA include are in `include/kpy/`, once:\n"
	        "`nvcc -std=c++17 -I include -c forward.cu` compiles a record's kernel.\n"
	        "\n## Checks\n\n"
	        "- `kpyc`, `kopt`, `kcpu`, `kcuda`, `kptx`: each tool accepted the kernel (kopt runs `ad,O` with `--verify-each`).\n"
	        "- `nvcc`: the CUDA of the shard (forward and backward kernels) compiled with `nvcc -arch=sm_80`.\n"
	        "- `ptxas`: the PTX of the shard was accepted by `ptxas -arch=sm_80`.\n"
	        "- `krun`: the C++ build ran on the CPU with seeded inputs and every output is finite.\n"
	        "- `order`: the forward and the backward kernel give the same results with their threads run in reverse and in a seeded shuffled order (integers and bools exactly, floats within the rounding of float atomics: relative 1e-4).\n"
	        "- `gradcheck`: the backward kernel agrees with central finite differences in double precision (relative error 1e-6 or less).\n"
	        "- `host`: the LLVM host object (kptx --target=host) gives the C++ build's outputs.\n"
	        "- `gpu_cuda`, `gpu_ptx`: the forward and the backward kernel ran on a GPU, through kcuda's CUDA\n"
	        "  (nvcc) and through kptx's PTX (the CUDA driver), and gave krun's outputs: `pass`,\n"
	        "  `fail: ...`, `skip: reason` or `not run` (see below).\n"
	        "\nShards are compiled and run as units (many kernels per nvcc, ptxas and C++\n"
	        "compiler call); a record's texts are the same kernel emitted on its own.\n\n");
	gpucard(&b, &st->gpu, NULL);
	bufputs(&b,
	        "## Provenance and license\n\n"
	        "Made by kpy " KPY_VERSION " from kernels kgen synthesized; no code was\n"
	        "collected from anywhere. Released under the Apache License 2.0, like kpy.\n"
	        "The kernels target the language of NVIDIA Warp (Apache License 2.0); no Warp\n"
	        "code is included.\n");
	(void)stats;
	snprintf(path, sizeof path, "%s/README.md", dir);
	if (writefile(path, b.s, b.n) != 0)
		fatal("cannot write %s:", path);
	buffree(&b);
}

/* Copy the runtime headers (the .h files of inc/kpy) to out/include/kpy: the dataset
 * ships them once, and a record's C++ and CUDA compile against them. */
static void
copyheaders(const char *inc, const char *out)
{
	char from[4096], to[4096];
	DIR *d;
	struct dirent *e;
	int n = 0;

	snprintf(from, sizeof from, "%s/kpy", inc);
	snprintf(to, sizeof to, "%s/include/kpy", out);
	if (!(d = opendir(from)))
		fatal("cannot open %s:", from);
	if (mkdir_p(to) != 0)
		fatal("cannot create %s:", to);
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name), len;
		char *text;

		if (l < 3 || strcmp(e->d_name + l - 2, ".h") != 0)
			continue;
		snprintf(from, sizeof from, "%s/kpy/%s", inc, e->d_name);
		snprintf(to, sizeof to, "%s/include/kpy/%s", out, e->d_name);
		if (!(text = readfile(from, &len)))
			fatal("cannot read %s:", from);
		if (writefile(to, text, len) != 0)
			fatal("cannot write %s:", to);
		free(text);
		n++;
	}
	closedir(d);
	if (!n)
		fatal("%s/kpy holds no headers", inc);
}

/* fn(o, kh, ctx) for every record of the shards, in order, whose normalized
 * kir hash kh was not seen before (the others counted in *dups); every line is
 * checked against the schema first.  Returns 1 on an unreadable shard or an
 * invalid record (said on stderr), else 0. */
typedef void RecordFn(cJSON *o, uint64_t kh, void *ctx);

static int
eachrecord(int argc, char **argv, RecordFn *fn, void *ctx, int *dups)
{
	HSet seen = {0};
	int i;

	for (i = 0; i < argc; i++) {
		char *text = readfile(argv[i], NULL), *line, *next;
		int lineno = 0;

		if (!text) {
			fprintf(stderr, "kpack: cannot read %s: %s\n", argv[i], strerror(errno));
			free(seen.k);
			return 1;
		}
		for (line = text; *line; line = next) {
			char *e = strchr(line, '\n');
			cJSON *o;
			uint64_t kh;

			next = e ? e + 1 : line + strlen(line);
			if (e)
				*e = 0;
			lineno++;
			if (!*line)
				continue;
			if (!(o = cJSON_Parse(line)) || checkrecord(argv[i], lineno, line)) {
				fprintf(stderr, "kpack: %s:%d: not a valid record\n", argv[i], lineno);
				cJSON_Delete(o);
				free(text);
				free(seen.k);
				return 1;
			}
			kh = strtoull(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "meta"),
			                                                "kir_hash")->valuestring, NULL, 16);
			if (hsetadd(&seen, kh))
				fn(o, kh, ctx);
			else if (dups)
				(*dups)++;
			cJSON_Delete(o);
		}
		free(text);
	}
	free(seen.k);
	return 0;
}

/* The merge's first pass: the records' Python for the near-duplicate
 * clusters, and their kir hashes in order. */
typedef struct Near {
	NearDup *nd;
	uint64_t *kirhash;
	uint32_t n, cap;
} Near;

static void
nearadd(cJSON *o, uint64_t kh, void *ctx)
{
	Near *nr = ctx;

	nd_add(nr->nd, cJSON_GetObjectItemCaseSensitive(o, "python")->valuestring);
	if (nr->n == nr->cap) {
		nr->cap = nr->cap ? 2 * nr->cap : 1024;
		nr->kirhash = xrealloc(nr->kirhash, nr->cap * sizeof *nr->kirhash);
	}
	nr->kirhash[nr->n++] = kh;
}

/* The second pass: each record to its split (its cluster's first record's),
 * and the counts. */
typedef struct Merge {
	Stats *st;
	Buf *split;                /* train, val, test lines */
	const char **splitnames;
	const int *pct;
	const uint64_t *kirhash;   /* from the first pass */
	const uint32_t *rep;
	uint32_t kept;             /* records placed so far */
	const NGrams *refgrams;    /* decontamination, or NULL */
} Merge;

/* Count a record's GPU checks (absent: not run) into n. */
static void
gpucount(GpuCounts *n, const cJSON *checks)
{
	size_t i;

	for (i = 0; i < countof(GPUCHECKS); i++) {
		int c = gpuclass(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(checks, GPUCHECKS[i])));
		n->n[i][c < 0 ? GPU_NONE : c]++;
	}
}

/* stats.json's "checks" entries of the GPU checks: {pass, fail, skip,
 * not_run}, every class, in that order; an entry already there is replaced
 * where it stands. */
static void
gpustats(cJSON *checks, const GpuCounts *n)
{
	size_t i;
	int k;

	for (i = 0; i < countof(GPUCHECKS); i++) {
		cJSON *o = cJSON_CreateObject();
		for (k = 0; k < GPU_NCLASS; k++)
			cJSON_AddNumberToObject(o, GPUCLASS[k], n->n[i][k]);
		if (cJSON_GetObjectItemCaseSensitive(checks, GPUCHECKS[i]))
			cJSON_ReplaceItemInObjectCaseSensitive(checks, GPUCHECKS[i], o);
		else
			cJSON_AddItemToObject(checks, GPUCHECKS[i], o);
	}
}

static void
mergeone(cJSON *o, uint64_t kh, void *ctx)
{
	Merge *mg = ctx;
	Stats *st = mg->st;
	cJSON *meta = cJSON_GetObjectItemCaseSensitive(o, "meta"), *cat, *x, *y;
	int s;

	if (mg->refgrams) {
		uint32_t hit, total;

		ng_overlap(mg->refgrams, cJSON_GetObjectItemCaseSensitive(o, "python")->valuestring, &hit, &total);
		if (hit) {
			st->overlapping++;
			st->contaminated += total && (double)hit / total >= CONTAMINATED;
			if (total && (double)hit / total > st->maxshare)
				st->maxshare = (double)hit / total;
		}
	}
	/* the split follows the hash of the cluster's first record and the
	 * requested percentages */
	s = splitno(mg->kirhash[mg->rep[mg->kept++]], mg->pct);
	st->moved += s != splitno(kh, mg->pct);
	cJSON_ReplaceItemInObjectCaseSensitive(meta, "split", cJSON_CreateString(mg->splitnames[s]));
	putline(&mg->split[s], o);
	st->split[s]++;
	st->records++;
	cat = sub(st->bycat, cJSON_GetObjectItemCaseSensitive(o, "category")->valuestring);
	bump(cat, "records", 1);
	bump(cat, mg->splitnames[s], 1);
	gpucount(&st->gpu, cJSON_GetObjectItemCaseSensitive(o, "checks"));
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(o, "checks"))
		if (!isgpucheck(x->string))
			bump(sub(st->checks, x->string), strcmp(x->valuestring, "pass") == 0 ? "pass" : "skip", 1);
	cJSON_ArrayForEach(y, cJSON_GetObjectItemCaseSensitive(meta, "ops"))
		bump(st->ops, y->string, (int)y->valuedouble);
	if (st->n == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 1024;
		st->pylines = xrealloc(st->pylines, (size_t)st->cap * sizeof(int));
		st->culines = xrealloc(st->culines, (size_t)st->cap * sizeof(int));
		st->pytok = xrealloc(st->pytok, (size_t)st->cap * sizeof(int));
		st->cutok = xrealloc(st->cutok, (size_t)st->cap * sizeof(int));
		st->ptxtok = xrealloc(st->ptxtok, (size_t)st->cap * sizeof(int));
	}
	{
		cJSON *cu = cJSON_GetObjectItemCaseSensitive(o, "cuda");
		st->pytok[st->n] = (int)nd_ntokens(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "python")), true);
		st->cutok[st->n] = (int)(nd_ntokens(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cu, "forward")), false) +
		                         nd_ntokens(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cu, "backward")), false));
		st->ptxtok[st->n] = (int)nd_ntokens(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "ptx")), false);
		st->tokens[0] += st->pytok[st->n];
		st->tokens[1] += st->cutok[st->n];
		st->tokens[2] += st->ptxtok[st->n];
	}
	x = cJSON_GetObjectItemCaseSensitive(meta, "lines");
	st->pylines[st->n] = (int)cJSON_GetObjectItemCaseSensitive(x, "python")->valuedouble;
	st->culines[st->n] = (int)cJSON_GetObjectItemCaseSensitive(x, "cuda_forward")->valuedouble;
	st->n++;
}

static int
cmdmerge(int argc, char **argv, const char *out, char **rejfiles, int nrej, const int pct[3], const char *inc,
         const char *refdir)
{
	Buf split[3] = {{0}};
	const char *splitnames[3] = {"train", "val", "test"};
	Stats st = {0};
	cJSON *stats, *c;
	char path[4096];
	int i, k;
	uint64_t *kirhash = NULL; /* per kept record, in order: its kir hash */
	uint32_t *rep = NULL;     /* per kept record: the first record of its near-duplicate cluster */
	NGrams *refgrams = NULL;  /* decontamination: the reference n-grams */

	if (!out) {
		fprintf(stderr, "kpack merge: -o OUTDIR is required\n");
		return 2;
	}
	st.bycat = cJSON_CreateObject();
	st.checks = cJSON_CreateObject();
	st.rejects = cJSON_CreateObject();
	st.ops = cJSON_CreateObject();
	if (refdir) {
		refgrams = ng_new();
		if ((st.reffiles = addrefs(refgrams, refdir, 0)) <= 0) {
			fprintf(stderr, "kpack: --decontaminate %s: %s\n", refdir,
			        st.reffiles < 0 ? strerror(errno) : "no .py file there");
			goto fail;
		}
	}
	/* first pass: the near-duplicate clusters of the records that stay, by
	 * their Python text; a cluster stays in one split (its first record's) */
	{
		Near nr = {nd_new(), NULL, 0, 0};
		uint32_t j;

		if (eachrecord(argc, argv, nearadd, &nr, NULL)) {
			nd_free(nr.nd);
			free(nr.kirhash);
			goto fail;
		}
		kirhash = nr.kirhash;
		rep = xmalloc((nr.n ? nr.n : 1) * sizeof *rep);
		st.neardups = (int)nd_cluster(nr.nd, NEAR_THRESHOLD, rep);
		{
			/* clusters of more than one: heads that some other record points at */
			bool *head = xcalloc(nr.n ? nr.n : 1, sizeof(bool));
			for (j = 0; j < nr.n; j++)
				if (rep[j] != j && !head[rep[j]]) {
					head[rep[j]] = true;
					st.nearclusters++;
				}
			free(head);
		}
		nd_free(nr.nd);
	}
	/* second pass: each record to its split, and the counts */
	{
		Merge mg = {&st, split, splitnames, pct, kirhash, rep, 0, refgrams};

		if (eachrecord(argc, argv, mergeone, &mg, &st.dups))
			goto fail;
	}
	for (i = 0; i < nrej; i++) {
		char *text = readfile(rejfiles[i], NULL), *line, *next;
		if (!text) {
			fprintf(stderr, "kpack: cannot read %s: %s\n", rejfiles[i], strerror(errno));
			goto fail;
		}
		for (line = text; *line; line = next) {
			char *e = strchr(line, '\n');
			cJSON *o, *chk, *cat;
			next = e ? e + 1 : line + strlen(line);
			if (e)
				*e = 0;
			if (!*line || !(o = cJSON_Parse(line)))
				continue;
			chk = cJSON_GetObjectItemCaseSensitive(o, "check");
			cat = cJSON_GetObjectItemCaseSensitive(o, "category");
			if (cJSON_IsString(chk) && cJSON_IsString(cat)) {
				bump(sub(st.rejects, chk->valuestring), cat->valuestring, 1);
				st.nrejects++;
			}
			cJSON_Delete(o);
		}
		free(text);
	}
	if (mkdir_p(out) != 0)
		fatal("cannot create %s:", out);
	if (inc)
		copyheaders(inc, out);
	for (k = 0; k < 3; k++)
		if (st.records && !st.split[k])
			fprintf(stderr, "kpack: warning: the %s split is empty (%d records in all): it has no file and "
			        "the card lists only the others; more kernels (N) fill it\n", splitnames[k], st.records);
	/* an empty split has no file (loaders reject empty files; a stale one goes) */
	for (k = 0; k < 3; k++) {
		snprintf(path, sizeof path, "%s/%s.jsonl", out, splitnames[k]);
		if (!st.split[k]) {
			if (remove(path) != 0 && errno != ENOENT)
				fatal("cannot remove %s:", path);
		} else if (writefile(path, split[k].s, split[k].n) != 0) {
			fatal("cannot write %s:", path);
		}
		buffree(&split[k]);
	}
	stats = cJSON_CreateObject();
	cJSON_AddNumberToObject(stats, "records", st.records);
	cJSON_AddNumberToObject(stats, "duplicates_removed", st.dups);
	cJSON_AddNumberToObject(stats, "rejected", st.nrejects);
	{
		int total = st.records + st.dups + st.nrejects;
		cJSON *r = cJSON_AddObjectToObject(stats, "rates");
		cJSON_AddNumberToObject(r, "accepted", total ? (double)(st.records + st.dups) / total : 0);
		cJSON_AddNumberToObject(r, "rejected", total ? (double)st.nrejects / total : 0);
		cJSON_AddNumberToObject(r, "duplicates", total ? (double)st.dups / total : 0);
	}
	c = cJSON_AddObjectToObject(stats, "near_duplicates");
	cJSON_AddStringToObject(c, "method", "MinHash of 5-token shingles of the Python text, 64 hashes, 16 bands");
	cJSON_AddNumberToObject(c, "threshold", NEAR_THRESHOLD);
	cJSON_AddNumberToObject(c, "records", st.neardups);
	cJSON_AddNumberToObject(c, "clusters", st.nearclusters);
	cJSON_AddNumberToObject(c, "moved_to_their_cluster_split", st.moved);
	c = cJSON_AddObjectToObject(stats, "decontamination");
	cJSON_AddStringToObject(c, "method", "13-token n-grams of the Python text shared with the reference files");
	cJSON_AddNumberToObject(c, "reference_files", st.reffiles);
	if (st.reffiles) {
		cJSON_AddNumberToObject(c, "records_with_overlap", st.overlapping);
		cJSON_AddNumberToObject(c, "contaminated_threshold", CONTAMINATED);
		cJSON_AddNumberToObject(c, "records_contaminated", st.contaminated);
		cJSON_AddNumberToObject(c, "largest_share_of_ngrams", st.maxshare);
	}
	c = cJSON_AddObjectToObject(stats, "splits");
	for (k = 0; k < 3; k++)
		cJSON_AddNumberToObject(c, splitnames[k], st.split[k]);
	cJSON_AddItemToObject(stats, "categories", st.bycat);
	if (st.records)
		gpustats(st.checks, &st.gpu);
	cJSON_AddItemToObject(stats, "checks", st.checks);
	cJSON_AddItemToObject(stats, "rejects_by_check", st.rejects);
	cJSON_AddItemToObject(stats, "ops", st.ops);
	c = cJSON_AddObjectToObject(stats, "sizes");
	cJSON_AddItemToObject(c, "python_lines", percentiles(st.pylines, st.n));
	cJSON_AddItemToObject(c, "cuda_forward_lines", percentiles(st.culines, st.n));
	/* tokens: identifiers, numbers and single punctuation characters (a
	 * model-independent count; a BPE tokenizer's differs by a factor) */
	c = cJSON_AddObjectToObject(stats, "tokens");
	{
		const char *names[3] = {"python", "cuda", "ptx"};
		int *v[3] = {st.pytok, st.cutok, st.ptxtok};
		for (i = 0; i < 3; i++) {
			cJSON *p = percentiles(v[i], st.n);
			cJSON_AddNumberToObject(p, "total", st.tokens[i]);
			cJSON_AddItemToObject(c, names[i], p);
		}
	}
	{
		char *s = cJSON_Print(stats);
		Buf b = {0};
		bufputs(&b, s);
		bufputc(&b, '\n');
		snprintf(path, sizeof path, "%s/stats.json", out);
		if (writefile(path, b.s, b.n) != 0)
			fatal("cannot write %s:", path);
		free(s);
		buffree(&b);
	}
	writecard(out, &st, stats);
	printf("kpack: %d records (%d train, %d val, %d test), %d duplicates removed, %d rejected -> %s\n",
	       st.records, st.split[0], st.split[1], st.split[2], st.dups, st.nrejects, out);
	cJSON_Delete(stats);
	free(st.pylines);
	free(st.culines);
	free(st.pytok);
	free(st.cutok);
	free(st.ptxtok);
	free(kirhash);
	free(rep);
	ng_free(refgrams);
	return 0;
fail:
	for (k = 0; k < 3; k++)
		buffree(&split[k]);
	cJSON_Delete(st.bycat);
	cJSON_Delete(st.checks);
	cJSON_Delete(st.rejects);
	cJSON_Delete(st.ops);
	free(st.pylines);
	free(st.culines);
	free(st.pytok);
	free(st.cutok);
	free(st.ptxtok);
	free(kirhash);
	free(rep);
	ng_free(refgrams);
	return 1;
}

/* ---- gpu: the GPU stage's results into the records ------------------ */

/* One kernel's result on one path, from the table. */
typedef struct GpuRes {
	int cls;            /* GPU_PASS, GPU_FAIL, GPU_SKIP; GPU_NONE: no line */
	const char *detail; /* FAIL: what failed; skip: why (in the table's text) */
	int line;           /* its table line (0: none) */
} GpuRes;

/* A record's lines in the table (its module: ID_py). */
typedef struct GpuEnt {
	char *id;
	const char *kernel;     /* its forward kernel's name; NULL: module-wide lines only */
	int line, kline;        /* the first line naming it, the first naming its kernel */
	char *ltext, *ktext;    /* copies of those lines (the diagnostics') */
	GpuRes r[countof(GPUCHECKS)][2]; /* [cuda, ptx][fwd, bwd] */
	bool matched;
} GpuEnt;

typedef struct GpuTable {
	const char *file;
	GpuEnt *e;
	size_t n, cap;
	size_t *slot, nslot;    /* open addressing on the id: index + 1, 0 empty */
	Buf env;                /* the table's comment lines, '\n'-separated */
	const char *summary;    /* its summary line, or NULL */
	int errors;
} GpuTable;

/* file:line:col: error: message, the line and a caret under col (1-based). */
static void
gpuerr(GpuTable *t, int line, const char *text, size_t col, const char *fmt, ...) KPY_PRINTF(5, 6);
static void
gpuerr(GpuTable *t, int line, const char *text, size_t col, const char *fmt, ...)
{
	va_list ap;
	size_t i;

	fprintf(stderr, "%s:%d:%zu: error: ", t->file, line, col);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n %s\n ", text ? text : "");
	for (i = 1; i < col && text && text[i - 1]; i++)
		fputc(text[i - 1] == '\t' ? '\t' : ' ', stderr);
	fputs("^\n", stderr);
	t->errors++;
}

static GpuEnt *
gpufind(GpuTable *t, const char *id, bool add)
{
	size_t i, mask;

	if (2 * (t->n + 1) > t->nslot) {
		size_t ns = t->nslot ? 2 * t->nslot : 256, j;
		free(t->slot);
		t->slot = xcalloc(ns, sizeof *t->slot);
		t->nslot = ns;
		for (j = 0; j < t->n; j++) {
			for (i = hash64(t->e[j].id, strlen(t->e[j].id), 0) & (ns - 1); t->slot[i]; i = (i + 1) & (ns - 1))
				;
			t->slot[i] = j + 1;
		}
	}
	mask = t->nslot - 1;
	for (i = hash64(id, strlen(id), 0) & mask; t->slot[i]; i = (i + 1) & mask)
		if (strcmp(t->e[t->slot[i] - 1].id, id) == 0)
			return &t->e[t->slot[i] - 1];
	if (!add)
		return NULL;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->e = xrealloc(t->e, t->cap * sizeof *t->e);
	}
	memset(&t->e[t->n], 0, sizeof t->e[t->n]);
	t->e[t->n].id = xstrdup(id);
	t->slot[i] = ++t->n;
	return &t->e[t->n - 1];
}

static void gpuline(GpuTable *t, int lineno, const char *line, char **f, const size_t *col, const char *detail);

/* Parse run.sh's table (text, modified in place: each line ends at its NUL;
 * details and names point into it). */
static void
gpuparse(GpuTable *t, char *text)
{
	char *line, *next;
	int lineno = 0;

	for (line = text; *line; line = next) {
		char *e = strchr(line, '\n'), *p, *f[6], *detail, *orig;
		size_t col[6], len;
		int nf = 0;

		next = e ? e + 1 : line + strlen(line);
		if (e)
			*e = 0;
		lineno++;
		len = strlen(line);
		while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
			line[--len] = 0;
		p = line + strspn(line, " \t");
		if (!*p)
			continue;
		if (*p == '#') {
			p++;
			bufputs(&t->env, p + strspn(p, " \t"));
			bufputc(&t->env, '\n');
			continue;
		}
		if (strncmp(p, "gpu-bundle:", 11) == 0) {
			t->summary = p;
			continue;
		}
		if (strncmp(p, "MODULE", 6) == 0 && (p[6] == ' ' || p[6] == '\t'))
			continue;
		/* MODULE KERNEL F/B PATH RES MAXERR [DETAIL], cut at blanks in
		 * place; the diagnostics show the line as it was */
		orig = xstrdup(line);
		for (p = line; nf < 6;) {
			p += strspn(p, " \t");
			if (!*p)
				break;
			col[nf] = (size_t)(p - line) + 1;
			f[nf++] = p;
			p += strcspn(p, " \t");
			if (*p)
				*p++ = 0;
		}
		detail = p + strspn(p, " \t");
		if (nf < 6) {
			gpuerr(t, lineno, orig, len + 1, "expected MODULE KERNEL F/B PATH RES MAXERR [DETAIL]; "
			       "the line has %d field%s", nf, nf == 1 ? "" : "s");
			free(orig);
			continue;
		}
		gpuline(t, lineno, orig, f, col, detail);
		free(orig);
	}
}

/* One result line of the table, its fields f (at columns col) and detail. */
static void
gpuline(GpuTable *t, int lineno, const char *line, char **f, const size_t *col, const char *detail)
{
	int path, fb, res, k;
	size_t len;
	GpuEnt *ent;
	char *id;

	len = strlen(f[0]);
	if (len < 4 || strcmp(f[0] + len - 3, "_py") != 0 ||
	    strspn(f[0], "abcdefghijklmnopqrstuvwxyz0123456789_") != len) {
		gpuerr(t, lineno, line, col[0], "module '%s' is not a record's (its id and _py)", f[0]);
		return;
	}
	fb = strcmp(f[2], "fwd") == 0 ? 0 : strcmp(f[2], "bwd") == 0 ? 1 : strcmp(f[2], "-") == 0 ? 2 : -1;
	path = strcmp(f[3], "cuda") == 0 ? 0 : strcmp(f[3], "ptx") == 0 ? 1 : -1;
	res = strcmp(f[4], "pass") == 0 ? GPU_PASS : strcmp(f[4], "FAIL") == 0 ? GPU_FAIL
	      : strcmp(f[4], "skip") == 0 ? GPU_SKIP : -1;
	if (fb < 0) {
		gpuerr(t, lineno, line, col[2], "F/B must be fwd, bwd or -, not '%s'", f[2]);
		return;
	}
	if (path < 0) {
		gpuerr(t, lineno, line, col[3], "PATH must be cuda or ptx, not '%s'", f[3]);
		return;
	}
	if (res < 0) {
		gpuerr(t, lineno, line, col[4], "RES must be pass, FAIL or skip, not '%s'", f[4]);
		return;
	}
	if ((fb == 2) != (strcmp(f[1], "-") == 0)) {
		gpuerr(t, lineno, line, col[fb == 2 ? 1 : 2], "a module-wide line has '-' for both KERNEL and F/B");
		return;
	}
	len = strlen(f[1]);
	if (fb == 0 && len > 4 && strcmp(f[1] + len - 4, ".adj") == 0) {
		gpuerr(t, lineno, line, col[1], "forward kernel '%s' has a backward kernel's name", f[1]);
		return;
	}
	if (fb == 1 && (len <= 4 || strcmp(f[1] + len - 4, ".adj") != 0)) {
		gpuerr(t, lineno, line, col[1], "backward kernel '%s' does not end in .adj", f[1]);
		return;
	}
	if (fb == 1)
		f[1][len - 4] = 0; /* the forward kernel's name */
	id = f[0];
	id[strlen(id) - 3] = 0;
	ent = gpufind(t, id, true);
	if (!ent->line) {
		ent->line = lineno;
		ent->ltext = xstrdup(line);
	}
	if (fb < 2) {
		if (!ent->kernel) {
			ent->kernel = f[1];
			ent->kline = lineno;
			ent->ktext = xstrdup(line);
		} else if (strcmp(ent->kernel, f[1]) != 0) {
			gpuerr(t, lineno, line, col[1], "record %s has kernel '%s' (line %d), not '%s' too", id,
			       ent->kernel, ent->kline, f[1]);
			return;
		}
	}
	for (k = 0; k < 2; k++) {
		GpuRes *r = &ent->r[path][k];
		if (fb != 2 && fb != k)
			continue;
		if (r->line) {
			gpuerr(t, lineno, line, col[0], "a second %s %s result for record %s (line %d)",
			       k ? "backward" : "forward", f[3], id, r->line);
			break;
		}
		r->cls = res;
		r->detail = detail;
		r->line = lineno;
	}
}

/* A GPU check's value for a record from its two kernels' results on one
 * path (kpy(7)): "pass", "not run", or "fail: ..." / "skip: ..." with each
 * kernel's part; a module-wide line gives its detail alone. */
static char *
gpuvalue(const GpuEnt *e, int path)
{
	const GpuRes *r = e ? e->r[path] : NULL;
	Buf b = {0};
	int k;

	if (!r || (!r[0].line && !r[1].line))
		return xstrdup(GPU_NOTRUN);
	if (r[0].cls == GPU_PASS && r[1].cls == GPU_PASS && r[0].line && r[1].line)
		return xstrdup("pass");
	bufputs(&b, r[0].cls == GPU_FAIL || r[1].cls == GPU_FAIL ? "fail: " : "skip: ");
	if (r[0].line == r[1].line) {
		bufputs(&b, *r[0].detail ? r[0].detail : r[0].cls == GPU_FAIL ? "FAIL" : "skipped");
		return b.s;
	}
	for (k = 0; k < 2; k++) {
		const char *d = !r[k].line ? GPU_NOTRUN : r[k].cls == GPU_PASS ? "pass" : *r[k].detail ? r[k].detail
		                : r[k].cls == GPU_FAIL ? "FAIL" : "skipped";
		bufprintf(&b, "%s%s: %s", k ? "; " : "", k ? "backward" : "forward", d);
	}
	return b.s;
}

/* Replace the card's GPU section (from its heading to the next) with sec;
 * a card without one gets it before its license section, or at its end. */
static void
gpucardupdate(Buf *out, const char *card, const char *sec)
{
	const char *s = strstr(card, "\n" GPU_SECTION), *e;

	if (s) {
		s++;
		e = strstr(s + strlen(GPU_SECTION), "\n## ");
		e = e ? e + 1 : s + strlen(s);
	} else {
		s = strstr(card, "\n## Provenance and license\n");
		s = s ? s + 1 : card + strlen(card);
		e = s;
	}
	bufwrite(out, card, (size_t)(s - card));
	bufputs(out, sec);
	bufputs(out, e);
}

/* kpack gpu --table FILE [-o OUTDIR] DIR: the results of DIR's GPU stage
 * (the bundle's RESULTS/table.txt) into its records, stats.json and card.
 * The records stream, one line in memory at a time, to temporary files
 * renamed over the splits only when the table and every record checked out
 * (an error removes them); stats.json and the card are then replaced, each
 * atomically. */
static int
cmdgpu(const char *dir, const char *table, const char *out)
{
	static const char *const splits[3] = {"train", "val", "test"};
	GpuTable t = {0};
	GpuCounts cnt = {0};
	HSet seen = {0};
	Buf card = {0}, sec = {0}, sb = {0};
	char *ttext = NULL, *stext = NULL, *ctext = NULL, *device = NULL, path[4096], *s, *tmp[3] = {NULL};
	cJSON *stats = NULL, *checks, *gpu, *failed = NULL, *f;
	int rc = 1, k, nrec = 0, nin = 0;
	size_t i;

	if (!out)
		out = dir;
	t.file = table;
	if (!(ttext = readfile(table, NULL))) {
		fprintf(stderr, "kpack: cannot read %s: %s\n", table, strerror(errno));
		goto done;
	}
	gpuparse(&t, ttext);
	if (t.errors)
		goto done;
	snprintf(path, sizeof path, "%s/stats.json", dir);
	if (!(stext = readfile(path, NULL)) || !(stats = cJSON_Parse(stext)) ||
	    !cJSON_IsObject(checks = cJSON_GetObjectItemCaseSensitive(stats, "checks"))) {
		fprintf(stderr, "kpack: %s: %s\n", path, !stext ? strerror(errno) : "not the stats.json of kpack merge");
		goto done;
	}
	snprintf(path, sizeof path, "%s/README.md", dir);
	if (!(ctext = readfile(path, NULL))) {
		fprintf(stderr, "kpack: cannot read %s: %s\n", path, strerror(errno));
		goto done;
	}
	/* the records, a line at a time, into temporary files beside the
	 * outputs: renamed over them once everything checked out */
	if (mkdir_p(out) != 0) {
		fprintf(stderr, "kpack: cannot create %s: %s\n", out, strerror(errno));
		rc = 2;
		goto done;
	}
	failed = cJSON_CreateArray();
	for (k = 0; k < 3 && !t.errors; k++) {
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;
		int lineno = 0;
		FILE *in, *to;

		snprintf(path, sizeof path, "%s/%s.jsonl", dir, splits[k]);
		if (!(in = fopen(path, "r"))) {
			if (errno == ENOENT)
				continue;
			fprintf(stderr, "kpack: cannot read %s: %s\n", path, strerror(errno));
			t.errors++;
			break;
		}
		tmp[k] = xmalloc(strlen(out) + 64);
		snprintf(tmp[k], strlen(out) + 64, "%s/%s.jsonl.tmp%ld", out, splits[k], (long)getpid());
		if (!(to = fopen(tmp[k], "w"))) {
			fprintf(stderr, "kpack: cannot write %s: %s\n", tmp[k], strerror(errno));
			free(tmp[k]);
			tmp[k] = NULL;
			fclose(in);
			rc = 2;
			t.errors++;
			break;
		}
		while (!t.errors && (len = getline(&line, &cap, in)) != -1) {
			cJSON *o, *ch;
			const char *id, *kernel;
			GpuEnt *ent;
			char *js;

			if (len && line[len - 1] == '\n')
				line[--len] = 0;
			lineno++;
			if (!(o = cJSON_Parse(line)) || checkrecord(path, lineno, line)) {
				fprintf(stderr, "kpack: %s:%d: not a valid record\n", path, lineno);
				cJSON_Delete(o);
				t.errors++;
				break;
			}
			id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "id"));
			kernel = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "kernel"));
			if (!hsetadd(&seen, hash64(id, strlen(id), 0))) {
				fprintf(stderr, "%s:%d: error: a second record %s: the table cannot say which it means\n",
				        path, lineno, id);
				t.errors++;
			}
			if ((ent = gpufind(&t, id, false))) {
				ent->matched = true;
				nin++;
				if (ent->kernel && strcmp(ent->kernel, kernel) != 0)
					gpuerr(&t, ent->kline, ent->ktext, 1, "record %s (%s:%d) has kernel '%s', not '%s'",
					       id, path, lineno, kernel, ent->kernel);
			}
			ch = cJSON_GetObjectItemCaseSensitive(o, "checks");
			for (i = 0; i < countof(GPUCHECKS); i++) {
				char *v = gpuvalue(ent, (int)i);
				if (cJSON_GetObjectItemCaseSensitive(ch, GPUCHECKS[i]))
					cJSON_ReplaceItemInObjectCaseSensitive(ch, GPUCHECKS[i], cJSON_CreateString(v));
				else
					cJSON_AddStringToObject(ch, GPUCHECKS[i], v);
				if (gpuclass(v) == GPU_FAIL) {
					f = cJSON_CreateObject();
					cJSON_AddStringToObject(f, "id", id);
					cJSON_AddStringToObject(f, "kernel", kernel);
					cJSON_AddStringToObject(f, "check", GPUCHECKS[i]);
					cJSON_AddStringToObject(f, "result", v);
					cJSON_AddItemToArray(failed, f);
				}
				free(v);
			}
			gpucount(&cnt, ch);
			if (!(js = cJSON_PrintUnformatted(o)))
				fatal("out of memory");
			fputs(js, to);
			fputc('\n', to);
			free(js);
			cJSON_Delete(o);
			nrec++;
		}
		free(line);
		if (ferror(in)) {
			fprintf(stderr, "kpack: cannot read %s: %s\n", path, strerror(errno));
			t.errors++;
		}
		fclose(in);
		if (fclose(to) != 0 && !t.errors) {
			fprintf(stderr, "kpack: cannot write %s: %s\n", tmp[k], strerror(errno));
			rc = 2;
			t.errors++;
		}
	}
	for (i = 0; i < t.n && !t.errors; i++)
		if (!t.e[i].matched)
			gpuerr(&t, t.e[i].line, t.e[i].ltext, 1, "no record %s in %s", t.e[i].id, dir);
	if (t.errors) {
		cJSON_Delete(failed);
		goto done;
	}
	/* stats.json: the GPU checks' counts where merge put them, and what ran */
	gpustats(checks, &cnt);
	gpu = cJSON_CreateObject();
	{
		cJSON *env = cJSON_AddArrayToObject(gpu, "environment");
		char *p = t.env.s;
		while (p && *p) {
			char *nl = strchr(p, '\n');
			*nl = 0;
			cJSON_AddItemToArray(env, cJSON_CreateString(p));
			if (!device && strncmp(p, "GPU ", 4) == 0 && strchr(p, ':')) {
				const char *d = strchr(p, ':') + 1, *u = strstr(d, " (UUID");
				d += strspn(d, " ");
				device = xstrdup(d);
				if (u)
					device[u - d] = 0;
			}
			p = nl + 1;
		}
	}
	cJSON_AddStringToObject(gpu, "summary", t.summary ? t.summary : "");
	cJSON_AddNumberToObject(gpu, "records_in_table", nin);
	cJSON_AddItemToObject(gpu, "failed", failed);
	if (cJSON_GetObjectItemCaseSensitive(stats, "gpu"))
		cJSON_ReplaceItemInObjectCaseSensitive(stats, "gpu", gpu);
	else
		cJSON_AddItemToObject(stats, "gpu", gpu);
	if (!(s = cJSON_Print(stats)))
		fatal("out of memory");
	bufputs(&sb, s);
	bufputc(&sb, '\n');
	free(s);
	gpucard(&sec, &cnt, device);
	gpucardupdate(&card, ctext, sec.s);
	/* every output is ready: the records in place, then the counts */
	for (k = 0; k < 3; k++) {
		if (!tmp[k])
			continue;
		snprintf(path, sizeof path, "%s/%s.jsonl", out, splits[k]);
		if (rename(tmp[k], path) != 0) {
			fprintf(stderr, "kpack: cannot write %s: %s\n", path, strerror(errno));
			rc = 2;
			goto done;
		}
		free(tmp[k]);
		tmp[k] = NULL;
	}
	for (k = 0; k < 2; k++) {
		const Buf *b = k ? &card : &sb;
		snprintf(path, sizeof path, "%s/%s", out, k ? "README.md" : "stats.json");
		if (writefile(path, b->s, b->n) != 0) {
			fprintf(stderr, "kpack: cannot write %s: %s\n", path, strerror(errno));
			rc = 2;
			goto done;
		}
	}
	cJSON_ArrayForEach(f, failed)
		printf("kpack: %s (%s): %s %s\n", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "id")),
		       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "kernel")),
		       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "check")),
		       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "result")));
	printf("kpack: GPU results of %d of %d records", nin, nrec);
	for (i = 0; i < countof(GPUCHECKS); i++)
		printf("; %s: %d pass, %d fail, %d skip, %d not run", GPUCHECKS[i], cnt.n[i][GPU_PASS],
		       cnt.n[i][GPU_FAIL], cnt.n[i][GPU_SKIP], cnt.n[i][GPU_NONE]);
	printf(" -> %s\n", out);
	rc = 0;
done:
	for (i = 0; i < t.n; i++) {
		free(t.e[i].id);
		free(t.e[i].ltext);
		free(t.e[i].ktext);
	}
	free(t.e);
	free(t.slot);
	buffree(&t.env);
	free(seen.k);
	for (k = 0; k < 3; k++)
		if (tmp[k]) {
			remove(tmp[k]);
			free(tmp[k]);
		}
	buffree(&card);
	buffree(&sec);
	buffree(&sb);
	cJSON_Delete(stats);
	free(ttext);
	free(stext);
	free(ctext);
	free(device);
	return rc;
}

/* ---- compare ------------------------------------------------------- */

/* ---- tasks --------------------------------------------------------- */

/* The first line of text that starts with prefix (malloc'd), or NULL. */
static char *
firstlinewith(const char *text, const char *prefix)
{
	const char *p = text;
	size_t n = strlen(prefix);

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		if (strncmp(p, prefix, n) == 0) {
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			char *s = xmalloc(len + 1);
			memcpy(s, p, len);
			s[len] = 0;
			return s;
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* What a model writing C++ with kcpu's ABI is given besides the Python:
 * the #include lines and the kernel table of the reference's module (the
 * ABI krun and keval read), and the launch entry's declaration. */
static cJSON *
cppgiven(const char *cpp, const char *py, const char *desc)
{
	cJSON *g = cJSON_CreateObject();
	const char *table = strstr(cpp, "// The kernel table");
	char *sig = firstlinewith(cpp, "extern \"C\" void kpy_launch_");
	Buf inc = {0};
	const char *p = cpp;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		if (strncmp(p, "#include", 8) == 0)
			bufwrite(&inc, p, nl ? (size_t)(nl - p + 1) : strlen(p));
		p = nl ? nl + 1 : NULL;
	}
	cJSON_AddStringToObject(g, "python", py);
	cJSON_AddStringToObject(g, "description", desc);
	cJSON_AddStringToObject(g, "signature", sig ? sig : "");
	cJSON_AddStringToObject(g, "includes", inc.s ? inc.s : "");
	cJSON_AddStringToObject(g, "kernel_table", table ? table : "");
	free(sig);
	buffree(&inc);
	return g;
}

static bool
incsv(const char *list, const char *s)
{
	size_t n = strlen(s);
	const char *p = list;

	while (p && *p) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		if (len == n && strncmp(p, s, n) == 0)
			return true;
		p = c ? c + 1 : NULL;
	}
	return false;
}

/* kpack tasks: three RL tasks per record (see kpack(1)). */
static int
cmdtasks(int argc, char **argv, const char *out, const char *holdout)
{
	Buf b = {0};
	int i, rc = 0;

	for (i = 0; i < argc && rc == 0; i++) {
		size_t len;
		char *text = readfile(argv[i], &len), *line, *save = NULL;
		int lineno = 0;
		if (!text) {
			fprintf(stderr, "kpack: cannot read %s: %s\n", argv[i], strerror(errno));
			rc = 1;
			break;
		}
		for (line = strtok_r(text, "\n", &save); line && rc == 0; line = strtok_r(NULL, "\n", &save)) {
			cJSON *r = cJSON_Parse(line), *cpp, *cuda, *meta;
			const char *id, *kernel, *cat, *desc, *py, *cf, *cb, *uf, *split = "train";
			char *pysig, want[300];
			int k;
			lineno++;
			cpp = cJSON_GetObjectItemCaseSensitive(r, "cpp");
			cuda = cJSON_GetObjectItemCaseSensitive(r, "cuda");
			meta = cJSON_GetObjectItemCaseSensitive(r, "meta");
			id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "id"));
			kernel = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "kernel"));
			cat = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "category"));
			desc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "description"));
			py = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "python"));
			cf = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cpp, "forward"));
			cb = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cpp, "backward"));
			uf = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cuda, "forward"));
			if (cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "split")))
				split = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "split"));
			if (!r || !id || !kernel || !cat || !desc || !py || !cf || !cb || !uf) {
				fprintf(stderr, "%s:%d: error: not a dataset record (id, kernel, category, description, "
				        "python, cpp.forward, cpp.backward, cuda.forward)\n", argv[i], lineno);
				cJSON_Delete(r);
				rc = 1;
				break;
			}
			if (holdout && incsv(holdout, cat))
				split = "heldout";
			snprintf(want, sizeof want, "def %s(", kernel);
			pysig = firstlinewith(py, want);
			for (k = 0; k < 3; k++) {
				static const char *const kind[] = {"cpp", "cpp-backward", "python"};
				cJSON *t = cJSON_CreateObject(), *g, *h;
				char name[200];
				snprintf(name, sizeof name, "%s/%s", id, kind[k]);
				cJSON_AddStringToObject(t, "task", name);
				cJSON_AddStringToObject(t, "id", id);
				snprintf(name, sizeof name, "%s%s", kernel, k == 1 ? ".adj" : "");
				cJSON_AddStringToObject(t, "kernel", name);
				cJSON_AddStringToObject(t, "category", cat);
				cJSON_AddStringToObject(t, "split", split);
				cJSON_AddStringToObject(t, "target", k == 2 ? "python" : "cpp");
				cJSON_AddBoolToObject(t, "backward", k == 1);
				if (k < 2) {
					g = cppgiven(k == 0 ? cf : cb, py, desc);
				} else {
					g = cJSON_CreateObject();
					cJSON_AddStringToObject(g, "cuda", uf);
					cJSON_AddStringToObject(g, "description", desc);
					cJSON_AddStringToObject(g, "signature", pysig ? pysig : "");
				}
				cJSON_AddItemToObject(t, "given", g);
				h = cJSON_AddArrayToObject(t, "hidden");
				cJSON_AddItemToArray(h, cJSON_CreateString("reference"));
				cJSON_AddItemToArray(h, cJSON_CreateString("seeds"));
				cJSON_AddItemToArray(h, cJSON_CreateString("inputs"));
				cJSON_AddItemToArray(h, cJSON_CreateString("expected outputs"));
				putline(&b, t);
				cJSON_Delete(t);
			}
			free(pysig);
			cJSON_Delete(r);
		}
		free(text);
	}
	if (rc == 0) {
		if (out) {
			Buf tmp = {0};
			bufprintf(&tmp, "%s.tmp%ld", out, (long)getpid());
			if (writefile(tmp.s, b.s ? b.s : "", b.n) != 0 || rename(tmp.s, out) != 0) {
				fprintf(stderr, "kpack: cannot write %s: %s\n", out, strerror(errno));
				remove(tmp.s);
				rc = 2;
			}
			buffree(&tmp);
		} else if (b.n) {
			fwrite(b.s, 1, b.n, stdout);
		}
	}
	buffree(&b);
	return rc;
}

/* ---- main ---------------------------------------------------------- */

int
main(int argc, char **argv)
{
	enum { OPT_REJ = 256, OPT_SPLIT, OPT_RTOL, OPT_ATOL, OPT_INC, OPT_DECON, OPT_HOLDOUT, OPT_TABLE };
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"rejects", required_argument, NULL, OPT_REJ},
		{"split", required_argument, NULL, OPT_SPLIT},
		{"include", required_argument, NULL, OPT_INC},
		{"decontaminate", required_argument, NULL, OPT_DECON},
		{"holdout", required_argument, NULL, OPT_HOLDOUT},
		{"table", required_argument, NULL, OPT_TABLE},
		{"rtol", required_argument, NULL, OPT_RTOL},
		{"atol", required_argument, NULL, OPT_ATOL},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const char *out = NULL, *cmd, *inc = NULL, *refdir = NULL, *holdout = NULL, *table = NULL;
	char *rej[4096];
	int nrej = 0, c, pct[3] = {90, 5, 5};
	double rtol = 1e-5, atol = 1e-6;

	progname = "kpack";
	while ((c = getopt_long(argc, argv, "+o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("kpack (kpy) %s\n", KPY_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind++];
	/* options after the subcommand */
	argc -= optind - 1;
	argv += optind - 1;
	optind = 0; /* 0: glibc re-initializes (permutation state included) */
	while ((c = getopt_long(argc, argv, "o:hV", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case OPT_REJ:
			if (nrej < 4096)
				rej[nrej++] = optarg;
			break;
		case OPT_INC:
			inc = optarg;
			break;
		case OPT_DECON:
			refdir = optarg;
			break;
		case OPT_HOLDOUT:
			holdout = optarg;
			break;
		case OPT_TABLE:
			table = optarg;
			break;
		case OPT_SPLIT:
			if (sscanf(optarg, "%d,%d,%d", &pct[0], &pct[1], &pct[2]) != 3 || pct[0] < 0 || pct[1] < 0 ||
			    pct[2] < 0 || pct[0] + pct[1] + pct[2] != 100) {
				fprintf(stderr, "kpack: --split wants three percentages that add up to 100\n");
				return 2;
			}
			break;
		case OPT_RTOL:
		case OPT_ATOL:
			*(c == OPT_RTOL ? &rtol : &atol) = strtod(optarg, &end);
			if (*end) {
				fprintf(stderr, "kpack: bad tolerance '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("kpack (kpy) %s\n", KPY_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (strcmp(cmd, "record") == 0 || strcmp(cmd, "shard") == 0) {
		if (argc < 1 || (strcmp(cmd, "record") == 0 && argc != 1)) {
			usage(stderr);
			return 2;
		}
		return cmdrecord(argc, argv, out, nrej ? rej[0] : NULL);
	}
	if (strcmp(cmd, "merge") == 0)
		return argc < 1 ? (usage(stderr), 2) : cmdmerge(argc, argv, out, rej, nrej, pct, inc, refdir);
	if (strcmp(cmd, "validate") == 0)
		return argc < 1 ? (usage(stderr), 2) : cmdvalidate(argc, argv);
	if (strcmp(cmd, "compare") == 0)
		return argc != 2 ? (usage(stderr), 2) : kpy_comparedirs("kpack", argv[0], argv[1], rtol, atol);
	if (strcmp(cmd, "export") == 0) {
		if (argc < 1 || !out) {
			fprintf(stderr, "kpack: export needs -o DIR and record files\n");
			return 2;
		}
		return cmdexport(argc, argv, out);
	}
	if (strcmp(cmd, "gpu") == 0) {
		if (argc != 1 || !table) {
			fprintf(stderr, "kpack: gpu needs --table FILE and one dataset folder\n");
			usage(stderr);
			return 2;
		}
		return cmdgpu(argv[0], table, out);
	}
	if (strcmp(cmd, "tasks") == 0)
		return argc < 1 ? (usage(stderr), 2) : cmdtasks(argc, argv, out, holdout);
	fprintf(stderr, "kpack: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
