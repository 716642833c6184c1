/* The Python printer.  Per kernel, three texts:
 *   the module   what a person writes: `import warp as wp`, structs, helper
 *                functions, the kernel; nothing of kgen's (emit_module);
 *   the metadata "key value" lines: seed, index, category, kernel, dim, module,
 *                description (emit_meta); in a stream of modules, the one line
 *                "# kgen: seed=S index=I category=C kernel=NAME dim=N[,M[,K]]"
 *                before each module (emit_header);
 *   the harness  a script that loads the module from its file, fills the inputs
 *                with numpy (seeded, runner ranges), launches on the CPU and prints
 *                a checksum of the outputs (emit_harness).  Expressions are printed with the fewest
 * parentheses Python's precedence allows, except that comparisons never chain and
 * nested conditional expressions are parenthesised. */
#include <stdio.h>
#include <string.h>

#include "kgen.h"

enum {
	PR_IFEXP = 1, PR_OR, PR_AND, PR_NOT, PR_CMP, PR_BOR, PR_BXOR, PR_BAND, PR_SHIFT, PR_ADD, PR_MUL,
	PR_UNARY, PR_POW, PR_ATOM,
};

static const char *
op_text(int op)
{
	switch (op) {
	case OP_ADD: return "+";
	case OP_SUB: return "-";
	case OP_MUL: return "*";
	case OP_DIV: return "/";
	case OP_FLOORDIV: return "//";
	case OP_MOD: return "%";
	case OP_MATMUL: return "@";
	case OP_POW: return "**";
	case OP_BITAND: return "&";
	case OP_BITOR: return "|";
	case OP_BITXOR: return "^";
	case OP_SHL: return "<<";
	case OP_SHR: return ">>";
	case OP_LT: return "<";
	case OP_LE: return "<=";
	case OP_GT: return ">";
	case OP_GE: return ">=";
	case OP_EQ: return "==";
	case OP_NE: return "!=";
	case OP_AND: return "and";
	case OP_OR: return "or";
	default: die("no text for operator %d", op);
	}
}

static int
bin_prec(int op)
{
	switch (op) {
	case OP_ADD:
	case OP_SUB:
		return PR_ADD;
	case OP_MUL:
	case OP_DIV:
	case OP_FLOORDIV:
	case OP_MOD:
	case OP_MATMUL:
		return PR_MUL;
	case OP_POW:
		return PR_POW;
	case OP_BITAND:
		return PR_BAND;
	case OP_BITOR:
		return PR_BOR;
	case OP_BITXOR:
		return PR_BXOR;
	default:
		return PR_SHIFT;
	}
}

static int
expr_prec(const Expr *e)
{
	switch (e->kind) {
	case E_LIT:
		return e->s[0] == '-' ? PR_UNARY : PR_ATOM;
	case E_BIN:
		return bin_prec(e->op);
	case E_UN:
		return e->op == OP_NOT ? PR_NOT : PR_UNARY;
	case E_CMP:
		return PR_CMP;
	case E_BOOL:
		return e->op == OP_AND ? PR_AND : PR_OR;
	case E_IFEXP:
		return PR_IFEXP;
	default:
		return PR_ATOM;
	}
}

static void emit_prec(Buf *b, const Expr *e, const Kernel *k, int min);

static void
emit_args(Buf *b, const Expr *const *a, int n, const Kernel *k)
{
	int i;

	for (i = 0; i < n; i++) {
		if (i)
			bufputs(b, ", ");
		emit_prec(b, a[i], k, PR_IFEXP);
	}
}

static void
emit_prec(Buf *b, const Expr *e, const Kernel *k, int min)
{
	int p = expr_prec(e);
	bool paren = p < min;

	if (paren)
		bufputs(b, "(");
	switch (e->kind) {
	case E_LIT:
	case E_RAW:
		bufputs(b, e->s);
		break;
	case E_VAR:
		bufputs(b, e->var->name);
		break;
	case E_BIN:
		if (e->op == OP_POW) {
			emit_prec(b, e->a[0], k, PR_POW + 1);
			bufputs(b, " ** ");
			emit_prec(b, e->a[1], k, PR_UNARY);
		} else {
			emit_prec(b, e->a[0], k, p);
			bufprintf(b, " %s ", op_text(e->op));
			emit_prec(b, e->a[1], k, p + 1);
		}
		break;
	case E_UN:
		if (e->op == OP_NOT) {
			bufputs(b, "not ");
			emit_prec(b, e->a[0], k, PR_NOT);
		} else if (e->op == OP_INVERT) {
			bufputs(b, "~");
			emit_prec(b, e->a[0], k, PR_UNARY);
		} else {
			bufputs(b, "-");
			/* never "--x": a negated operand that is itself unary is parenthesised */
			emit_prec(b, e->a[0], k, PR_POW);
		}
		break;
	case E_CMP:
		emit_prec(b, e->a[0], k, PR_CMP + 1);
		bufprintf(b, " %s ", op_text(e->op));
		emit_prec(b, e->a[1], k, PR_CMP + 1);
		break;
	case E_BOOL:
		emit_prec(b, e->a[0], k, p);
		bufprintf(b, " %s ", op_text(e->op));
		emit_prec(b, e->a[1], k, p + 1);
		break;
	case E_IFEXP:
		emit_prec(b, e->a[1], k, PR_OR);
		bufputs(b, " if ");
		emit_prec(b, e->a[0], k, PR_OR);
		bufputs(b, " else ");
		emit_prec(b, e->a[2], k, PR_OR);
		break;
	case E_CALL:
		bufputs(b, e->s);
		if (!strchr(e->s, '(')) {
			bufputs(b, "(");
			emit_args(b, (const Expr *const *)e->a, e->n, k);
			bufputs(b, ")");
		}
		break;
	case E_LOAD:
		bufprintf(b, "%s[", e->var->name);
		emit_args(b, (const Expr *const *)e->a, e->n, k);
		bufputs(b, "]");
		break;
	case E_INDEX:
		emit_prec(b, e->a[0], k, PR_ATOM);
		bufputs(b, "[");
		emit_args(b, (const Expr *const *)e->a + 1, e->n - 1, k);
		bufputs(b, "]");
		break;
	case E_ATTR:
		emit_prec(b, e->a[0], k, PR_ATOM);
		bufprintf(b, ".%s", e->s);
		break;
	case E_SHAPE:
		bufprintf(b, "%s.shape[%d]", e->var->name, e->n);
		break;
	default:
		die("cannot print expression kind %d", e->kind);
	}
	if (paren)
		bufputs(b, ")");
}

void
emit_expr(Buf *b, const Expr *e, const Kernel *k)
{
	emit_prec(b, e, k, PR_IFEXP);
}

/* ----------------------------------------------------------------- statements */

static void
indent(Buf *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		bufputs(b, "    ");
}

static void emit_block(Buf *b, const Block *blk, const Kernel *k, int ind);

/* A literal definition of a variable a dynamic loop mutates: float(0.0), int(0). */
static void
emit_def_value(Buf *b, const Stmt *s, const Kernel *k)
{
	const Var *v = s->var;

	if (v->need_dynamic && s->e->kind == E_LIT && !(v->ty.kind == TY_FLOAT && v->ty.prec == PREC_F64)) {
		bufprintf(b, "%s(%s)", ty_scalar_py(v->ty), s->e->s);
		return;
	}
	emit_expr(b, s->e, k);
}

static void
emit_if_chain(Buf *b, const Stmt *s, const Kernel *k, int ind)
{
	indent(b, ind);
	bufputs(b, s->elif ? "elif " : "if ");
	emit_expr(b, s->e, k);
	bufputs(b, ":\n");
	emit_block(b, &s->body, k, ind + 1);
	if (s->orelse.n == 1 && s->orelse.v[0]->kind == S_IF && s->orelse.v[0]->elif) {
		emit_if_chain(b, s->orelse.v[0], k, ind);
	} else if (s->orelse.n > 0) {
		indent(b, ind);
		bufputs(b, "else:\n");
		emit_block(b, &s->orelse, k, ind + 1);
	}
}

static void
emit_stmt(Buf *b, const Stmt *s, const Kernel *k, int ind)
{
	int i;

	if (s->kind == S_IF) {
		emit_if_chain(b, s, k, ind);
		return;
	}
	indent(b, ind);
	switch (s->kind) {
	case S_ASSIGN:
		bufprintf(b, "%s = ", s->var->name);
		if (s->is_def)
			emit_def_value(b, s, k);
		else
			emit_expr(b, s->e, k);
		break;
	case S_AUG:
		bufprintf(b, "%s %s= ", s->var->name, op_text(s->op));
		emit_expr(b, s->e, k);
		break;
	case S_STORE:
		bufprintf(b, "%s[", s->var->name);
		emit_args(b, (const Expr *const *)s->idx, s->nidx, k);
		bufputs(b, "] = ");
		emit_expr(b, s->e, k);
		break;
	case S_ATOMIC:
		if (s->s) {
			bufprintf(b, "%s(%s, ", s->s, s->var->name);
			emit_args(b, (const Expr *const *)s->idx, s->nidx, k);
			bufputs(b, ", ");
			emit_expr(b, s->e, k);
			bufputs(b, ")");
		} else {
			bufprintf(b, "%s[", s->var->name);
			emit_args(b, (const Expr *const *)s->idx, s->nidx, k);
			bufprintf(b, "] %s= ", op_text(s->op));
			emit_expr(b, s->e, k);
		}
		break;
	case S_FOR:
		bufprintf(b, "for %s in range(", s->var->name);
		emit_args(b, (const Expr *const *)s->idx, s->nidx, k);
		bufputs(b, "):\n");
		emit_block(b, &s->body, k, ind + 1);
		return;
	case S_WHILE:
		bufputs(b, "while ");
		emit_expr(b, s->e, k);
		bufputs(b, ":\n");
		emit_block(b, &s->body, k, ind + 1);
		return;
	case S_BREAK:
		bufputs(b, "break");
		break;
	case S_CONTINUE:
		bufputs(b, "continue");
		break;
	case S_ASSERT:
		bufputs(b, "assert ");
		emit_expr(b, s->e, k);
		break;
	case S_RETURN:
		bufputs(b, s->nidx ? "return " : "return"); /* a kernel's early exit: no value */
		emit_args(b, (const Expr *const *)s->idx, s->nidx, k);
		break;
	case S_UNPACK:
		for (i = 0; i < s->nvars; i++)
			bufprintf(b, "%s%s", i ? ", " : "", s->vars[i]->name);
		bufputs(b, " = ");
		emit_expr(b, s->e, k);
		break;
	case S_SETATTR: /* s "[k]": a vector component; "wp.transform_set_...": that setter */
		if (!strncmp(s->s, "wp.", 3)) {
			bufprintf(b, "%s(%s, ", s->s, s->var->name);
			emit_expr(b, s->e, k);
			bufputs(b, ")");
			break;
		}
		bufprintf(b, s->s[0] == '[' ? "%s%s = " : "%s.%s = ", s->var->name, s->s);
		emit_expr(b, s->e, k);
		break;
	default:
		die("cannot print statement kind %d", s->kind);
	}
	bufputs(b, "\n");
}

static void
emit_block(Buf *b, const Block *blk, const Kernel *k, int ind)
{
	int i;

	if (blk->n == 0) {
		indent(b, ind);
		bufputs(b, "pass\n");
		return;
	}
	for (i = 0; i < blk->n; i++)
		emit_stmt(b, blk->v[i], k, ind);
}

/* ----------------------------------------------------------------- module */

static void
emit_array_ann(Buf *b, const Var *a, const Kernel *k)
{
	static const char *const arr[4] = { "", "wp.array", "wp.array2d", "wp.array3d" };

	bufprintf(b, "%s(dtype=%s)", arr[a->ndim], ty_py(a->elem, k));
}

static void
emit_params(Buf *b, Var *const *p, int n, const Kernel *k)
{
	int i;

	for (i = 0; i < n; i++) {
		if (i)
			bufputs(b, ", ");
		if (p[i]->role == V_ARRAY) {
			bufprintf(b, "%s: ", p[i]->name);
			emit_array_ann(b, p[i], k);
		} else
			bufprintf(b, "%s: %s", p[i]->name, ty_py(p[i]->ty, k));
	}
}

/* numpy shape of an array of t: "shape", "shape + (3,)", "shape + (3, 3)" */
static const char *
np_size(Type t)
{
	static const char *const v[7] = { "", "", "shape + (2,)", "shape + (3,)", "shape + (4,)", "", "shape + (6,)" };
	static const char *const m[7] = { "", "", "shape + (2, 2)", "shape + (3, 3)", "shape + (4, 4)", "", "shape + (6, 6)" };

	switch (t.kind) {
	case TY_VEC:
		return v[t.n];
	case TY_MAT:
		return m[t.n];
	case TY_QUAT:
		return "shape + (4,)";
	case TY_XFORM:
		return "shape + (7,)";
	default:
		return "shape";
	}
}

static const char *
np_float(Type t)
{
	return t.prec == PREC_F64 ? "np.float64" : "np.float32";
}

static void
emit_main(Buf *b, const Kernel *k)
{
	int i, d, f;
	bool first = true;

	bufputs(b, "    wp.config.quiet = True\n");
	bufputs(b, "    wp.config.log_level = getattr(wp, \"LOG_WARNING\", 30)\n");
	bufputs(b, "    wp.init()\n");
	bufprintf(b, "    rng = np.random.default_rng(%u)\n", (unsigned)k->np_seed);
	bufputs(b, "    shape = (");
	for (d = 0; d < k->ndim; d++)
		bufprintf(b, "%d%s", k->dims[d], k->ndim == 1 ? "," : (d + 1 < k->ndim ? ", " : ""));
	bufputs(b, ")\n");
	for (i = 0; i < k->nparams; i++) {
		const Var *p = k->params[i];

		if (p->role == V_ARRAY) {
			if (p->io != IO_IN)
				bufprintf(b, "    %s = wp.zeros(shape, dtype=%s, device=\"cpu\")\n", p->name, ty_py(p->elem, k));
			else if (p->elem.kind == TY_INT)
				bufprintf(b, "    %s = wp.array(rng.integers(-8, 9, size=shape, dtype=np.int32), dtype=int, device=\"cpu\")\n",
					   p->name);
			else
				bufprintf(b, "    %s = wp.array(rng.uniform(-1.0, 1.0, size=%s).astype(%s), dtype=%s, device=\"cpu\")\n",
					   p->name, np_size(p->elem), np_float(p->elem), ty_py(p->elem, k));
		} else if (p->ty.kind == TY_STRUCT) {
			const StructDef *sd = &k->structs[p->ty.sid];

			bufprintf(b, "    %s = m.%s()\n", p->name, sd->name);
			for (f = 0; f < sd->nfields; f++) {
				Type t = sd->fty[f];

				if (t.kind == TY_INT)
					bufprintf(b, "    %s.%s = int(rng.integers(-8, 9))\n", p->name, sd->fname[f]);
				else if (t.kind == TY_VEC)
					bufprintf(b, "    %s.%s = %s(*rng.uniform(-1.0, 1.0, size=%d).tolist())\n", p->name, sd->fname[f],
						   ty_py(t, k), t.n);
				else
					bufprintf(b, "    %s.%s = float(rng.uniform(-1.0, 1.0))\n", p->name, sd->fname[f]);
			}
		} else if (p->ty.kind == TY_INT) {
			bufprintf(b, "    %s = int(rng.integers(-8, 9))\n", p->name);
		} else {
			bufprintf(b, "    %s = float(rng.uniform(-1.0, 1.0))\n", p->name);
		}
	}
	bufprintf(b, "    wp.launch(m.%s, dim=shape, inputs=[", k->name);
	for (i = 0; i < k->nparams; i++)
		bufprintf(b, "%s%s", i ? ", " : "", k->params[i]->name);
	bufputs(b, "], device=\"cpu\")\n");
	bufputs(b, "    checksum = 0.0\n");
	bufputs(b, "    for result in (");
	for (i = 0; i < k->nparams; i++) {
		const Var *p = k->params[i];

		if (p->role == V_ARRAY && p->io != IO_IN) {
			bufprintf(b, "%s%s", first ? "" : ", ", p->name);
			first = false;
		}
	}
	bufputs(b, ",):\n");
	bufputs(b, "        checksum += float(np.sum(result.numpy().astype(np.float64)))\n");
	bufprintf(b, "    print(f\"%s checksum {checksum:.9e}\")\n", k->name);
}

/* "# kgen: seed=S index=I category=C kernel=NAME dim=..." (a stream's separator) */
void
emit_header(const Kernel *k, Buf *b)
{
	int d;

	bufprintf(b, "# kgen: seed=%llu index=%llu category=%s kernel=%s dim=", (unsigned long long)k->seed,
		   (unsigned long long)k->index, k->category, k->name);
	for (d = 0; d < k->ndim; d++)
		bufprintf(b, "%s%d", d ? "," : "", k->dims[d]);
	bufputs(b, "\n");
}

void
emit_meta(const Kernel *k, const char *module, Buf *b)
{
	int d;

	bufprintf(b, "seed %llu\nindex %llu\ncategory %s\nkernel %s\ndim ", (unsigned long long)k->seed,
		   (unsigned long long)k->index, k->category, k->name);
	for (d = 0; d < k->ndim; d++)
		bufprintf(b, "%s%d", d ? "," : "", k->dims[d]);
	bufprintf(b, "\nmodule %s\ndescription %s\n", module, k->description);
}

/* The harness: runs the module given as its argument (default: module, next to it). */
void
emit_harness(const Kernel *k, const char *module, Buf *b)
{
	bufprintf(b, "# Runs %s from %s with random inputs on the CPU and prints a checksum\n", k->name, module);
	bufputs(b, "# of its outputs (needs warp-lang and numpy): python3 THIS [MODULE.py]\n");
	bufputs(b, "import importlib.util\nimport os\nimport sys\n\nimport numpy as np\nimport warp as wp\n\n");
	bufprintf(b, "path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), \"%s\")\n",
		   module);
	bufputs(b, "spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)\n");
	bufputs(b, "m = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(m)\n");
	bufputs(b, "\n\nif __name__ == \"__main__\":\n");
	emit_main(b, k);
}

/* The module: imports, structs, helpers, the kernel. */
void
emit_module(const Kernel *k, Buf *b)
{
	int i, f;

	bufputs(b, "import warp as wp\n");
	for (i = 0; i < k->nstructs; i++) {
		const StructDef *sd = &k->structs[i];

		if (!sd->name)
			continue;
		bufprintf(b, "\n\n@wp.struct\nclass %s:\n", sd->name);
		for (f = 0; f < sd->nfields; f++)
			bufprintf(b, "    %s: %s\n", sd->fname[f], ty_py(sd->fty[f], k));
	}
	for (i = 0; i < k->nfuncs; i++) {
		const Func *fn = k->funcs[i];

		bufprintf(b, "\n\n@wp.func\ndef %s(", fn->name);
		emit_params(b, fn->params, fn->nparams, k);
		bufputs(b, ")");
		if (fn->nrets == 1)
			bufprintf(b, " -> %s", ty_py(fn->rets[0], k));
		bufputs(b, ":\n");
		emit_block(b, &fn->body, k, 1);
	}
	bufprintf(b, "\n\n@wp.kernel\ndef %s(", k->name);
	emit_params(b, k->params, k->nparams, k);
	bufputs(b, "):\n");
	emit_block(b, &k->body, k, 1);
}
