#!/usr/bin/env python3
"""wheelkernels — every @wp.kernel of the installed warp-lang wheel's tests
and examples, one standalone module each, and what kpyc and Warp make of it.

  wheelkernels.py extract  --out DIR
  wheelkernels.py coverage --out DIR --bin BUILD-DIR [--all-files] [--backends] [-j N]
  wheelkernels.py backends --bin BUILD-DIR [-j N] UNIT.py...

extract reads every .py under warp/tests and warp/examples (as text, with
Python's ast; nothing of the file is executed) and finds every function
decorated @wp.kernel, at module level or nested in functions, classes, if,
with and try blocks.  For each it writes DIR/units/NAME.py: the imports,
module-level assignments, @wp.func functions, @wp.struct classes and plain
helpers the kernel reaches (transitively, by name), the definitions of the
enclosing functions it reads (hoisted to module level, as Warp captures
them), then the kernel itself, renamed NAME = STEM__QUALNAME so that every
kernel of the wheel has its own name.  A kernel that reads a parameter of an
enclosing function or a variable of an enclosing loop (a kernel factory:
Warp makes one kernel per call) is not extracted; DIR/index.json records it
with that reason.  Each unit is classified "core", or "out of scope" with
the feature that puts it there (tiles, mesh/volume/BVH/hash-grid queries,
textures, indexed and fabric arrays, native snippets, wp.Function
parameters: issue 14's list), and marked "deterministic" where it names
Warp's deterministic mode.  A generic kernel's unit carries the
wp.overload calls, top-level loops of them over a tuple or list display of
types, and @wp.overload stubs of its scope (those that read no
loop variable or parameter), so both build the overloads the file declares;
where the file declares none, Warp instantiates the kernel at each launch
for the arguments' types, so the unit declares, as wp.overload, the types
of the file's launches of it where they can be read without running the
file (literals, wp.TYPE(...), locals bound once to those or to
wp.zeros/empty/ones/full/array(SHAPE, dtype=T), T also the variable of
an enclosing loop over a tuple display: one overload per element).
A generic kernel whose unit declares no overload and no launch kpyc or
this script can read is built by neither: Warp generates no code for it
(checked: Kernel.is_generic with no overloads after its code generation)
and kpyc skips it with a located warning; it is counted apart, as "not
instantiated", in neither the core nor the out-of-scope kernels.

coverage runs kpyc on every unit (accepted, or rejected with its first
located error) and builds it in Warp (import, then Warp's code generation
for the CPU, no C++ compilation), and prints per file and in total how many
core kernels each accepts, and the rejection messages grouped.  It exits 1
when a kernel is skipped without a reason or kpyc fails without a located
error.  Results go to DIR/coverage.json (read by warpkernels.py).

With --backends, coverage then takes every unit kpyc accepts through the
back ends as tests/cuda/gpu-bundle.sh does (kopt -p inline,ad,fold,cse,dce,
else kopt -O; kcuda | nvcc -ptx; kopt -p LOWER | kptx | ptxas; sm_90), -j N
at a time (default: make's -j, else the CPUs), and prints per class how many
compile through kcuda+nvcc, kptx+ptxas and both, the core and overall
percentages through both, and every unit a back end fails with its first
error line (docs/warp-1.19.md).  nvcc and ptxas missing: said, and skipped;
their answers are cached in DIR/backend-cache.json.  backends does the same
for the units named, and exits 1 when a back end fails.
"""
import argparse
import ast
import collections
import json
import os
import re
import subprocess
import sys
import textwrap

NOT_INSTANTIATED = "not instantiated"  # generic, no overload or readable launch

OUT_OF_SCOPE = [  # (feature, pattern over the unit's text)
    ("tiles", r"\bwp\.tile\w*|\btile_\w+\s*\(|\bwp\.Tile\b"),
    ("mesh queries", r"\bmesh_\w+\s*\(|\bwp\.Mesh\w*"),
    ("volume queries", r"\bvolume_\w+\s*\(|\bwp\.Volume\b"),
    ("BVH queries", r"\bbvh_\w+\s*\(|\bwp\.Bvh\b"),
    ("hash-grid queries", r"\bhash_grid_\w+\s*\(|\bwp\.HashGrid\b"),
    ("textures", r"\b[Tt]exture\w*"),
    ("indexed arrays", r"\bindexed\w*array\w*"),  # indexedarray, indexedfabricarray
    ("fabric arrays", r"\bfabric\w*array\w*"),
    ("native snippets", r"\bfunc_native\b"),
    ("wp.Function parameters", r"\bwp\.Function\b"),
    ("wp.ref", r"\bwp\.ref\b"),
    ("entry points", r"\bentry_point_abi\b|\bcluster_dim\b"),
    ("warp.fem", r"\bfem\.\w+|\bintegrand\b"),
]


def warp_dirs():
    import importlib.util
    spec = importlib.util.find_spec("warp")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("wheelkernels: warp is not installed in this Python")
    root = list(spec.submodule_search_locations)[0]
    return root, [os.path.join(root, "tests"), os.path.join(root, "examples")]


def is_kernel_decorator(d):
    f = d.func if isinstance(d, ast.Call) else d
    return isinstance(f, ast.Attribute) and f.attr == "kernel" and isinstance(f.value, ast.Name) and f.value.id in ("wp", "warp")


def decorator_names(node):
    out = []
    for d in getattr(node, "decorator_list", []):
        f = d.func if isinstance(d, ast.Call) else d
        out.append(ast.unparse(f))
    return out


def bound_names(stmt):
    """Names a statement binds at its scope's level."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*"}
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        # names only: `wp.config.x = ...` or `a[i] = ...` bind nothing
        targets = list(stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        out = set()
        while targets:
            t = targets.pop()
            if isinstance(t, ast.Name):
                out.add(t.id)
            elif isinstance(t, (ast.Tuple, ast.List)):
                targets.extend(t.elts)
            elif isinstance(t, ast.Starred):
                targets.append(t.value)
        return out
    return set()


def overload_of(stmt):
    """The kernel a wp.overload statement names: wp.overload(K, ...) alone or
    assigned, or a def decorated @wp.overload; else None."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if any(ast.unparse(d) in ("wp.overload", "warp.overload") for d in stmt.decorator_list):
            return stmt.name
        return None
    v = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
    if isinstance(v, ast.Call) and ast.unparse(v.func) in ("wp.overload", "warp.overload") and v.args \
            and isinstance(v.args[0], ast.Name):
        return v.args[0].id
    return None


def overload_loop(stmt):
    """The kernel a top-level `for NAMES in (tuple or list display):` loop
    declares overloads of, when its body is wp.overload calls of that one
    kernel only; else None."""
    if not (isinstance(stmt, ast.For) and isinstance(stmt.iter, (ast.Tuple, ast.List)) and not stmt.orelse):
        return None
    names = {overload_of(b) for b in stmt.body if not isinstance(b, ast.Pass)}
    if len(names) != 1 or None in names or any(isinstance(b, ast.FunctionDef) for b in stmt.body):
        return None
    return names.pop()


def used_names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def stored_names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def params_of(fn):
    a = fn.args
    return {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + ([a.vararg] if a.vararg else []) + ([a.kwarg] if a.kwarg else [])}


class Scope:
    """Definitions visible at one level: name -> the statements that bind it
    (in source order), plus names that are dynamic (parameters, loop
    variables) and so cannot be hoisted."""

    def __init__(self, kind, parent=None):
        self.kind = kind  # "module" or "function"
        self.parent = parent
        self.defs = collections.defaultdict(list)
        self.dynamic = {}
        self.star = []
        self.overloads = collections.defaultdict(list)  # kernel name -> its wp.overload statements

    def add(self, stmt):
        ov = overload_of(stmt)
        if ov:
            self.overloads[ov].append(stmt)
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return  # a stub binds the kernel's name to the kernel again
        for n in bound_names(stmt):
            self.defs[n].append(stmt)
        if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
            self.star.append(stmt)


def collect(stmts, scope, kernels, chain, loopvars):
    """Walk statements: fill scope with what they bind, record kernels with
    the scope chain they see."""
    for s in stmts:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(is_kernel_decorator(d) for d in s.decorator_list):
                kernels.append((s, scope, list(chain), set(loopvars)))
            scope.add(s)
            inner = Scope("function", scope)
            for p in params_of(s):
                inner.dynamic[p] = "parameter %s of enclosing function %s" % (p, s.name)
            collect(s.body, inner, kernels, chain + [s.name], set())
        elif isinstance(s, ast.ClassDef):
            scope.add(s)
            # class bodies are not visible to the functions in them
            collect(s.body, Scope("class", scope), kernels, chain + [s.name], set())
        elif scope.kind == "module" and overload_loop(s):
            # for T in (wp.float32, ...): wp.overload(K, [...]): the loop
            # declares K's overloads (kpyc reads it as Warp runs it)
            scope.overloads[overload_loop(s)].append(s)
        elif isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            lv = set(loopvars)
            if not isinstance(s, ast.While):
                for n in ast.walk(s.target):
                    if isinstance(n, ast.Name):
                        lv.add(n.id)
                        scope.dynamic[n.id] = "variable %s of an enclosing loop" % n.id
            collect(s.body, scope, kernels, chain, lv)
            collect(s.orelse, scope, kernels, chain, lv)
        elif isinstance(s, ast.If):
            collect(s.body, scope, kernels, chain, loopvars)
            collect(s.orelse, scope, kernels, chain, loopvars)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            collect(s.body, scope, kernels, chain, loopvars)
        elif isinstance(s, ast.Try):
            for b in [s.body] + [h.body for h in s.handlers] + [s.orelse, s.finalbody]:
                collect(b, scope, kernels, chain, loopvars)
        else:
            scope.add(s)


BUILTIN_NAMES = set(dir(__builtins__)) if not isinstance(__builtins__, dict) else set(__builtins__)


def stmt_text(lines, s):
    first = min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])])
    text = textwrap.dedent("".join(lines[first - 1:s.end_lineno]))
    try:
        ast.parse(text)
        return text
    except SyntaxError:
        return ast.unparse(s) + "\n"


def const_value(node):
    """A number or bool literal (a negated one too), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = const_value(node.operand)
        return -v if v is not None else None
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)) and len(node.args) == 1 \
            and not node.keywords and re.match(r"^(wp\.)?(u?int\d*|float\d*|bool)$", ast.unparse(node.func)):
        return const_value(node.args[0])  # wp.float32(2.0), wp.uint8(3)
    return None


def read_launches(tree):
    """wp.launch(NAME, dim=..., inputs=[...]) calls: {NAME: [{"dim": [...]
    or None, "set": {position: literal}}]}, what can be read as literals."""
    out = collections.defaultdict(list)
    for c in ast.walk(tree):
        if not (isinstance(c, ast.Call) and ast.unparse(c.func) in ("wp.launch", "warp.launch")):
            continue
        kw = {k.arg: k.value for k in c.keywords}
        kern = c.args[0] if c.args else kw.get("kernel")
        if not isinstance(kern, ast.Name):
            continue
        dimn = c.args[1] if len(c.args) > 1 else kw.get("dim")
        dim = None
        if dimn is not None:
            if const_value(dimn) is not None:
                dim = [const_value(dimn)]
            elif isinstance(dimn, (ast.Tuple, ast.List)) and all(isinstance(const_value(e), int) for e in dimn.elts):
                dim = [const_value(e) for e in dimn.elts]
        inputs = c.args[2] if len(c.args) > 2 else kw.get("inputs")
        sets = {}
        if isinstance(inputs, (ast.List, ast.Tuple)):
            for i, e in enumerate(inputs.elts):
                v = const_value(e)
                if v is not None:
                    sets[i] = v
        out[kern.id].append({"dim": dim, "set": sets})
    return out


WARP_TYPE = re.compile(r"^(wp|warp)\.(u?int(8|16|32|64)|float(16|32|64)|bool|(vec|mat)\w+|quat\w*|transform\w*|"
                       r"spatial_\w+)$")
ARRAY_MAKERS = ("zeros", "empty", "ones", "full", "array")


def literal_type(node):
    """The Warp type (as source text) of a launch argument Warp would give
    it, read without running anything: a literal, a wp.TYPE(...)
    construction; else None."""
    if isinstance(node, ast.Constant) and type(node.value) in (bool, int, float):
        return {bool: "wp.bool", int: "wp.int32", float: "wp.float32"}[type(node.value)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return literal_type(node.operand)
    if isinstance(node, ast.Call) and WARP_TYPE.match(ast.unparse(node.func)):
        return ast.unparse(node.func)
    return None


def array_type(node, binds=None, env=None):
    """wp.zeros/empty/ones/full/array(SHAPE, dtype=T) with a literal shape
    (an int or a name: one dimension; a tuple: its length) and T a Python
    scalar type or a wp. type: "wp.array(dtype=T, ndim=N)", else None;
    binds: a function's names bound once (for wp.array's data); env: the
    values of an enclosing loop's variables (for T)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
            ast.unparse(node.func.value) in ("wp", "warp") and node.func.attr in ARRAY_MAKERS):
        return None
    kw = {k.arg: k.value for k in node.keywords}
    dt = kw.get("dtype")
    if isinstance(dt, ast.Name) and env and dt.id in env:
        dt = env[dt.id]
    if dt is None:
        return None
    dts = ast.unparse(dt)
    dts = {"int": "wp.int32", "float": "wp.float32", "bool": "wp.bool"}.get(dts, dts)
    if not WARP_TYPE.match(dts):
        return None
    shape = kw.get("shape")
    if shape is None and node.func.attr != "array" and node.args:
        shape = node.args[0]
    if shape is None and node.func.attr == "array":
        # data a flat list or tuple of literals, wp.TYPE(...) values or
        # names bound once to those: one dimension (a vector dtype takes
        # the literals by its length)
        data = node.args[0] if node.args else kw.get("data")
        binds = binds or {}

        def flat(e):
            if literal_type(e):
                return True
            return isinstance(e, ast.Name) and len(binds.get(e.id, [])) == 1 and literal_type(binds[e.id][0])
        if isinstance(data, (ast.List, ast.Tuple)) and data.elts and all(flat(e) for e in data.elts):
            return "wp.array(dtype=%s, ndim=1)" % dts
        return None
    if isinstance(shape, (ast.Name, ast.Attribute)) or (isinstance(shape, ast.Constant) and type(shape.value) is int):
        nd = 1
    elif isinstance(shape, (ast.Tuple, ast.List)) and 1 <= len(shape.elts) <= 4:
        nd = len(shape.elts)
    else:
        return None
    return "wp.array(dtype=%s, ndim=%d)" % (dts, nd)


def launch_overloads(tree, fn):
    """Warp instantiates a generic kernel for the argument types of each
    launch; for the launches of fn whose arguments can be read (literals,
    wp.TYPE(...), locals bound once to such or to wp.zeros(..., dtype=T)
    and the like), the wp.overload statements that declare those types
    for fn's generic parameters, as source text."""
    params = [a for a in fn.args.args]
    generic = [("Any" in ast.unparse(a.annotation)) if a.annotation is not None else False for a in params]
    if not any(generic):
        return []
    out = []
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        binds = collections.defaultdict(list)
        for st in ast.walk(func):
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                binds[st.targets[0].id].append(st.value)
        for c in ast.walk(func):
            if not (isinstance(c, ast.Call) and ast.unparse(c.func) in ("wp.launch", "warp.launch")):
                continue
            kw = {k.arg: k.value for k in c.keywords}
            kern = c.args[0] if c.args else kw.get("kernel")
            if not (isinstance(kern, ast.Name) and kern.id == fn.name):
                continue
            args = []
            for part in (c.args[2] if len(c.args) > 2 else kw.get("inputs"), kw.get("outputs")):
                if part is None:
                    continue
                if not isinstance(part, (ast.List, ast.Tuple)):
                    args = None
                    break
                args += part.elts
            if args is None or len(args) != len(params):
                continue
            for env in loop_envs(func, c):
                types = {}
                for p, g, a in zip(params, generic, args):
                    if not g:
                        continue
                    if isinstance(a, ast.Name) and len(binds.get(a.id, [])) == 1:
                        a = binds[a.id][0]
                    t = literal_type(a) or array_type(a, binds, env)
                    if t is None:
                        types = None
                        break
                    types[p.arg] = t
                if types:
                    text = "wp.overload(%s, {%s})\n" % (fn.name, ", ".join("%r: %s" % kv for kv in types.items()))
                    if text not in out:
                        out.append(text)
    return out


def loop_envs(func, call):
    """The values of the variables of the innermost loop of func around
    call that iterates over a tuple or list display (for T, tol in
    ((wp.float16, 1e-3), ...)): one dict per element; [{}] if none."""
    best = None
    for st in ast.walk(func):
        if isinstance(st, ast.For) and isinstance(st.iter, (ast.Tuple, ast.List)) and \
                any(n is call for b in st.body for n in ast.walk(b)):
            if best is None or any(n is st for b in best.body for n in ast.walk(b)):
                best = st
    if best is None:
        return [{}]
    names = [best.target] if isinstance(best.target, ast.Name) else \
        list(best.target.elts) if isinstance(best.target, ast.Tuple) else None
    if not names or not all(isinstance(n, ast.Name) for n in names):
        return [{}]
    envs = []
    for el in best.iter.elts:
        if len(names) == 1:
            envs.append({names[0].id: el})
        elif isinstance(el, (ast.Tuple, ast.List)) and len(el.elts) == len(names):
            envs.append({n.id: v for n, v in zip(names, el.elts)})
        else:
            return [{}]
    return envs


def extract_file(path, rel, stem, names_taken):
    src = open(path, encoding="utf-8").read()
    lines = src.splitlines(keepends=True)
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        return [{"file": rel, "kernel": "?", "skip": "the file does not parse: %s" % e}]
    top = Scope("module")
    kernels = []
    collect(tree.body, top, kernels, [], set())
    options = [st for st in tree.body if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)
               and ast.unparse(st.value.func) in ("wp.set_module_options", "warp.set_module_options")]
    launches = read_launches(tree)
    out = []
    for fn, scope, chain, loopvars in kernels:
        qual = "__".join(chain + [fn.name])
        name = re.sub(r"\W", "_", "%s__%s" % (stem, qual))
        base, i = name, 2
        while name in names_taken:
            name, i = "%s_%d" % (base, i), i + 1
        names_taken.add(name)
        rec = {"file": rel, "kernel": ".".join(chain + [fn.name]), "line": fn.lineno, "name": name}
        # resolve names, transitively, from the kernel's scope outward
        # the kernel's overloads (Warp builds one kernel each) go with it,
        # with what they read; one that reads a loop variable or a
        # parameter (wp.overload(k, [T]) in a loop over types) is left out
        ovls = scope.overloads.get(fn.name, []) if scope.kind != "class" else []
        ovl_ids = {id(o) for o in ovls}

        def resolve(work, seen):
            need, unresolved = [], set()
            while work:
                node, sc, local, assigned = work.pop()
                for n in sorted(used_names(node) - local):
                    s = sc
                    while s is not None:
                        # a name the function assigns is its own local, unless
                        # Warp resolves it as a global (wp.static): look for
                        # definitions, never for a captured loop variable
                        if n in s.dynamic and not s.defs.get(n) and n not in assigned:
                            return need, unresolved, s.dynamic[n]
                        if s.kind != "class" and s.defs.get(n):
                            for d in s.defs[n]:
                                if id(d) not in seen and d is not fn and id(d) not in ovl_ids:
                                    seen.add(id(d))
                                    need.append((s, d))
                                    isfn = isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
                                    work.append((d, s, params_of(d) if isfn else set(), stored_names(d) if isfn else set()))
                            break
                        s = s.parent
                    else:
                        if n not in BUILTIN_NAMES:
                            unresolved.add(n)
            return need, unresolved, None

        seen = set()
        need, unresolved, dynamic = resolve([(fn, scope, params_of(fn), stored_names(fn))], seen)
        kept = []
        for o in ([] if dynamic else ovls):
            isfn = isinstance(o, (ast.FunctionDef, ast.AsyncFunctionDef))
            oseen = set(seen)
            local = (params_of(o) if isfn else set()) | {fn.name}
            if isinstance(o, ast.For):
                local |= stored_names(o.target)
            n2, u2, dyn2 = resolve([(o, scope, local, set())], oseen)
            if dyn2:
                rec["overloads_left_out"] = rec.get("overloads_left_out", 0) + 1
                continue
            seen |= oseen
            need += n2
            unresolved |= u2
            kept.append(o)
        ovls = kept
        if dynamic:
            rec["skip"] = "kernel factory: reads %s" % dynamic
            out.append(rec)
            continue
        # module-level first (source order), then enclosing scopes outward-in
        def key(p):
            s, d = p
            depth = 0
            while s.parent is not None:
                s, depth = s.parent, depth + 1
            return (depth, d.lineno)
        parts = []
        if unresolved:
            for st in top.star:
                if id(st) not in seen:
                    need.append((top, st))
                    seen.add(id(st))
        for s, d in sorted(need, key=key):
            parts.append(stmt_text(lines, d))
        for st in options:
            parts.append(stmt_text(lines, st))
        ktext = stmt_text(lines, fn)
        params = [x.arg for x in fn.args.args]
        rec["launches"] = [{"dim": l["dim"], "set": {params[i]: v for i, v in l["set"].items() if i < len(params)}}
                           for l in launches.get(fn.name, [])][:8]
        ktext = re.sub(r"^(\s*(?:async\s+)?def\s+)%s\b" % re.escape(fn.name), r"\g<1>" + name, ktext, count=1, flags=re.M)
        otexts = []
        for o in ovls:
            ot = stmt_text(lines, o)
            if isinstance(o, (ast.FunctionDef, ast.AsyncFunctionDef)):
                ot = re.sub(r"^(\s*(?:async\s+)?def\s+)%s\b" % re.escape(fn.name), r"\g<1>" + name, ot, count=1, flags=re.M)
            else:
                ot = re.sub(r"(\boverload\s*\(\s*)%s\b" % re.escape(fn.name), r"\g<1>" + name, ot,
                            count=0 if isinstance(o, ast.For) else 1)
            otexts.append(ot)
        if not otexts:
            # no overload declared: those of the file's launches (Warp's
            # implicit instantiation), where their argument types can be read
            otexts = [re.sub(r"(\boverload\s*\(\s*)%s\b" % re.escape(fn.name), r"\g<1>" + name, t, count=1)
                      for t in launch_overloads(tree, fn)]
            if otexts:
                rec["launch_overloads"] = len(otexts)
        if otexts:
            rec["overloads"] = len(otexts)
        body = "\n".join(parts + [ktext] + otexts)
        header = "# wheelkernels: %s:%d %s\n" % (rel, fn.lineno, rec["kernel"])
        rec["text"] = header + body
        scope_hits = [f for f, pat in OUT_OF_SCOPE if re.search(pat, body)]
        rec["class"] = "out of scope: " + ", ".join(scope_hits) if scope_hits else "core"
        if re.search(r"\bdeterministic\b", body):
            rec["deterministic"] = True
        if unresolved:
            rec["unresolved"] = sorted(unresolved)
        out.append(rec)
    return out


def extract(outdir):
    root, dirs = warp_dirs()
    units = os.path.join(outdir, "units")
    os.makedirs(units, exist_ok=True)
    for f in os.listdir(units):
        os.remove(os.path.join(units, f))
    index, taken = [], set()
    for d in dirs:
        for dp, dn, fns in os.walk(d):
            dn[:] = sorted(x for x in dn if x != "__pycache__")
            for f in sorted(fns):
                if not f.endswith(".py"):
                    continue
                path = os.path.join(dp, f)
                src = open(path, encoding="utf-8", errors="replace").read()
                if "kernel" not in src:
                    continue
                rel = os.path.relpath(path, os.path.dirname(root))
                stem = os.path.splitext(f)[0]
                for rec in extract_file(path, rel, stem, taken):
                    if "text" in rec:
                        rec["unit"] = os.path.join("units", rec["name"] + ".py")
                        with open(os.path.join(outdir, rec["unit"]), "w") as g:
                            g.write(rec.pop("text"))
                    index.append(rec)
    with open(os.path.join(outdir, "index.json"), "w") as g:
        json.dump(index, g, indent=0)
    return index


def first_error(stderr, unit):
    """kpyc's first located error, without the file name and location."""
    for line in stderr.splitlines():
        m = re.match(r"^.*?:\d+:\d+: error: (.*)$", line)
        if m:
            return m.group(1)
    return None


def normalize(msg):
    """Group messages: names and numbers quoted in them become placeholders."""
    msg = re.sub(r"'[^']*'", "'…'", msg)
    msg = re.sub(r"\b\d+\b", "N", msg)
    return msg[:110]


def warp_check(units, outdir):
    """Build every unit in Warp (import + CPU code generation); returns
    {name: None or the reason}.  Cached by the unit's text."""
    import hashlib
    import importlib.util
    cache_path = os.path.join(outdir, "warp-cache.json")
    try:
        cache = json.load(open(cache_path))
    except (OSError, ValueError):
        cache = {}
    import warp as wp
    wp.config.log_level = 40 if hasattr(wp.config, "log_level") else None
    wp.config.quiet = True
    wp.init()
    from warp._src.context import ModuleBuilder
    res = {}
    for rec in units:
        text = open(os.path.join(outdir, rec["unit"])).read()
        h = hashlib.sha256(("v3:" + text).encode()).hexdigest()[:16]
        if h in cache:
            res[rec["name"]] = cache[h]
            continue
        why = None
        built = True
        try:
            spec = importlib.util.spec_from_file_location("wk_" + rec["name"], os.path.join(outdir, rec["unit"]))
            mod = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = mod
            spec.loader.exec_module(mod)
            k = getattr(mod, rec["name"], None)
            if not isinstance(k, wp.Kernel):
                why = "the unit has no kernel %s" % rec["name"]
            else:
                m = k.module
                opts = m.resolve_options(wp.config, block_dim=256)
                ModuleBuilder(m, opts | {"output_arch": None, "block_dim": 256}, target="cpu").codegen("cpu")
                # a generic kernel with no overload: Warp generated no code
                # for it (it instantiates one at each launch)
                built = not (k.is_generic and len(k.overloads) == 0)
        except BaseException as e:  # noqa: BLE001 - any failure is a rejection
            # Warp's parse errors end with ";the reason" after the source line
            why = "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[-1].lstrip(";")[:200])
        cache[h] = [why, built]
        res[rec["name"]] = [why, built]
    json.dump(cache, open(cache_path, "w"))
    return res


def analyse(outdir, bindir):
    """extract, then kpyc and Warp on every unit: the index, with "kpyc" and
    "warp" (None: accepted; else the reason) on every extracted kernel."""
    index = extract(outdir)
    units = [r for r in index if "unit" in r]
    kpyc = os.path.join(bindir, "kpyc")
    for rec in units:
        p = subprocess.run([kpyc, os.path.join(outdir, rec["unit"])], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        err = p.stderr.decode(errors="replace")
        if p.returncode == 0:
            # accepted: the kernel must be in the output, never dropped
            # (a generic kernel: one per wp.overload, its name mangled with the types)
            found = re.search(r"^kernel @%s(__\w+)?\(" % re.escape(rec["name"]), p.stdout.decode(errors="replace"), re.M)
            warn = re.search(r"^.*?:\d+:\d+: warning: (.*)$", err, re.M)
            rec["kpyc"] = None if found else "warning: " + warn.group(1) if warn else \
                "(dropped: exit 0 without kernel %s in the kir, and no warning)" % rec["name"]
        else:
            msg = first_error(err, rec["unit"])
            rec["kpyc"] = msg or "(no located error, exit %d) %s" % (p.returncode, err.strip()[:200])
    wres = warp_check(units, outdir)
    for rec in units:
        rec["warp"], built = wres[rec["name"]]
        if not built and rec["warp"] is None and rec["class"] == "core" and (rec["kpyc"] or "").startswith(
                "warning: ") and "generic" in rec["kpyc"]:
            # neither compiles anything: Warp builds a generic kernel only
            # for an overload or at a launch, and the unit declares neither
            # (kpyc says so in a located warning); not a core kernel either
            # accepts or rejects
            rec["class"] = NOT_INSTANTIATED
    with open(os.path.join(outdir, "coverage.json"), "w") as g:
        json.dump(index, g, indent=0)
    return index



# The back ends, as the GPU bundle and warpbench run them (tests/cuda/
# gpu-bundle.sh): forward and backward kernels where kopt's ad applies,
# else kopt -O; then kcuda and nvcc, and kopt's lowering, kptx and ptxas.
# nvcc -ptx, not -c: its front end and NVVM are what can reject kcuda's C++,
# and it takes a third of -c's time here (1.1 s against 3.0 s a unit).
ADPIPE = "inline,ad,fold,cse,dce"
LOWER = "unroll,fold,cse,dce,scalarize,fold,cse,dce"
ARCH = "sm_90"


def make_jobs():
    """-j of the make that runs us (GNU make puts it in MAKEFLAGS), else
    the number of CPUs."""
    m = re.search(r"(?:^|\s)-\w*j(\d+)", os.environ.get("MAKEFLAGS", ""))
    return int(m.group(1)) if m else (os.cpu_count() or 1)


def error_line(text):
    """The first line of a tool's output that says error, else its first."""
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    for x in lines:
        if re.search(r"\berror\b", x, re.I):
            return x[:200]
    return lines[0][:200] if lines else "(no message)"


def tool(exe):
    """exe's path when it can be run, else None."""
    import shutil
    return shutil.which(exe)


def backend_one(path, bindir, work, nvcc, ptxas, inc, cache):
    """One unit through both back ends: (cuda, ptx), each None when it
    compiled, "skipped: ..." when the assembler is absent, else
    "STAGE: first error line"."""
    import hashlib
    B = lambda t: os.path.join(bindir, t)  # noqa: E731
    w = os.path.join(work, os.path.basename(path)[:-3])
    env = dict(os.environ, KPY_CACHE=w + ".cache", KPY_INCLUDE=inc)

    def run(stage, argv):
        try:
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        except OSError as e:
            return "%s: %s" % (stage, e)
        return None if p.returncode == 0 else "%s: %s" % (stage, error_line(p.stdout.decode(errors="replace")))

    def cached(stage, argv, src, key):
        # nvcc and ptxas take most of the time: their answer is kept by the
        # text they read, their options (not the scratch paths) and, for
        # nvcc, the runtime headers
        opts = " ".join(x for x in argv[1:] if not x.startswith(work) and x != "-o")
        h = hashlib.sha256((key + "\0" + argv[0] + " " + opts + "\0").encode() + open(src, "rb").read()).hexdigest()[:20]
        if h in cache["old"]:
            cache["new"][h] = r = cache["old"][h]
            return r
        cache["new"][h] = r = run(stage, argv)
        return r

    e = run("kpyc", [B("kpyc"), path, "-o", w + ".0.kir"])
    if e:
        return e, e
    if run("kopt -p ad", [B("kopt"), "-p", ADPIPE, w + ".0.kir", "-o", w + ".kir"]):
        e = run("kopt -O", [B("kopt"), "-O", w + ".0.kir", "-o", w + ".kir"])
        if e:
            return e, e
    cuda = run("kcuda", [B("kcuda"), w + ".kir", "-o", w + ".cu"])
    if cuda is None:
        cuda = "skipped: no nvcc" if not nvcc else cached(
            "nvcc", [nvcc, "-ptx", "-arch=" + ARCH, "-std=c++17", "-I" + inc, w + ".cu", "-o", w + ".cu.ptx"], w + ".cu", inc_key(inc))
    ptx = run("kopt -p lower", [B("kopt"), "-p", LOWER, w + ".kir", "-o", w + ".low.kir"]) or \
        run("kptx", [B("kptx"), "--arch=" + ARCH, w + ".low.kir", "-o", w + ".ptx"])
    if ptx is None:
        ptx = "skipped: no ptxas" if not ptxas else cached(
            "ptxas", [ptxas, "-arch=" + ARCH, w + ".ptx", "-o", w + ".cubin"], w + ".ptx", "")
    for f in os.listdir(work):
        if f.startswith(os.path.basename(w) + "."):
            q = os.path.join(work, f)
            if os.path.isfile(q):
                os.unlink(q)
    return cuda, ptx


_inc_key = {}


def inc_key(inc):
    """A digest of the runtime headers (nvcc's answer depends on them)."""
    if inc not in _inc_key:
        import hashlib
        h = hashlib.sha256()
        for d, _, fs in sorted(os.walk(inc)):
            for f in sorted(fs):
                h.update(f.encode() + open(os.path.join(d, f), "rb").read())
        _inc_key[inc] = h.hexdigest()
    return _inc_key[inc]


def backends(paths, bindir, jobs, nvcc, ptxas, cache_path=None):
    """Every unit in paths through both back ends, jobs at a time:
    {path: (cuda, ptx)} as backend_one says."""
    import concurrent.futures
    import shutil
    import tempfile
    inc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "include")
    inc = os.path.normpath(inc)
    nvcc = tool(nvcc) if nvcc else None
    ptxas = tool(ptxas) if ptxas else None
    cache = {"old": {}, "new": {}}  # the answers kept, and those this run used
    if cache_path:
        try:
            cache["old"] = json.load(open(cache_path))
        except (OSError, ValueError):
            pass
    work = tempfile.mkdtemp(prefix="wheelkernels.")
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(jobs, 1)) as ex:
            futs = {p: ex.submit(backend_one, p, bindir, work, nvcc, ptxas, inc, cache) for p in paths}
            res = {p: f.result() for p, f in futs.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if cache_path:
        with open(cache_path + ".tmp", "w") as g:
            json.dump(cache["new"], g)
        os.replace(cache_path + ".tmp", cache_path)
    return res, nvcc, ptxas


def backend_report(recs, res, nvcc, ptxas):
    """Per class: accepted by kpyc, compiled through kcuda+nvcc, through
    kptx+ptxas, both; then every unit a back end fails, with its error.
    Returns the number of those failures."""
    if not nvcc:
        print("back ends: nvcc not found: kcuda's output is not compiled (skipped)")
    if not ptxas:
        print("back ends: ptxas not found: kptx's output is not assembled (skipped)")
    ok = lambda r: r is None  # noqa: E731
    print("%-40s %8s %11s %11s %6s" % ("class", "kpyc", "kcuda+nvcc", "kptx+ptxas", "both"))
    byclass = collections.defaultdict(list)
    for r in recs:
        byclass[r.get("class", "units")].append(r)
    for c in sorted(byclass, key=lambda c: (c != "core", c)):
        rs = [res[r["path"]] for r in byclass[c]]
        print("%-40s %8d %11d %11d %6d" % (c[:40], len(rs), sum(ok(a) for a, _ in rs), sum(ok(b) for _, b in rs),
                                          sum(ok(a) and ok(b) for a, b in rs)))
    failed = []
    for r in recs:
        a, b = res[r["path"]]
        if a is not None and a == b and not a.startswith("skipped"):
            failed.append("  %s: %s" % (r["path"], a))  # kpyc or kopt, before both
            continue
        for name, e in (("kcuda", a), ("kptx", b)):
            if e is not None and not e.startswith("skipped"):
                failed.append("  %s: %s path: %s" % (r["path"], name, e))
    print("kernels kpyc accepts that a back end fails: %d" % len(failed))
    for x in failed:
        print(x)
    return len(failed)


def coverage(outdir, bindir, show, be=None):
    index = analyse(outdir, bindir)
    units = [r for r in index if "unit" in r]
    bad = sum(1 for r in units if r["kpyc"] and r["kpyc"].startswith("("))
    silent = [r for r in index if "unit" not in r and not r.get("skip")]

    def tally(recs):
        core = [r for r in recs if r.get("class") == "core"]
        return (len(recs), len(core), sum(1 for r in core if r["warp"] is None),
                sum(1 for r in core if r["warp"] is None and r["kpyc"] is None),
                sum(1 for r in recs if r.get("warp") is None), sum(1 for r in recs if r.get("warp") is None and r.get("kpyc") is None))

    byfile = collections.defaultdict(list)
    for r in index:
        byfile[r["file"]].append(r)
    print("%-58s %7s %6s %6s %6s" % ("file", "kernels", "core", "warp", "kpyc"))
    for f in sorted(byfile):
        recs = [r for r in byfile[f] if "unit" in r]
        n, c, w, k, _, _ = tally(recs)
        if c and (show or k < w):
            print("%-58s %7d %6d %6d %6d" % (f[-58:], len(byfile[f]), c, w, k))
    skipped = [r for r in index if "unit" not in r]
    n, c, w, k, wa, ka = tally(units)
    print()
    print("kernels found: %d; extracted: %d; not extracted, with reason: %d" % (len(index), n, len(skipped)))
    for why, cnt in collections.Counter(re.sub(r" \w+ of enclosing function \w+| \w+ of an enclosing loop", " …", r["skip"]) for r in skipped).most_common():
        print("  %5d  %s" % (cnt, why))
    oos = collections.Counter(r["class"] for r in units if r["class"] not in ("core", NOT_INSTANTIATED))
    print("out of scope: %d (%s)" % (sum(oos.values()), "; ".join("%s %d" % (k2[len("out of scope: "):], v) for k2, v in oos.most_common(8))))
    print("generic kernels Warp and kpyc build no instance of (no wp.overload, no launch read): %d" %
          sum(1 for r in units if r["class"] == NOT_INSTANTIATED))
    for label, sel in (("examples", "warp/examples/"), ("tests", "warp/tests/")):
        _, c2, w2, k2, _, _ = tally([r for r in units if r["file"].startswith(sel)])
        print("%-8s core kernels %d: Warp accepts %d, kpyc accepts %d of those (%.1f%%)" % (
            label, c2, w2, k2, 100.0 * k2 / max(w2, 1)))
    print("core kernels %d: Warp accepts %d, kpyc accepts %d of those (%.1f%%)" % (c, w, k, 100.0 * k / max(w, 1)))
    print("all extracted %d: Warp accepts %d, kpyc accepts %d of those (%.1f%%)" % (n, wa, ka, 100.0 * ka / max(wa, 1)))
    kacc_wrej = [r for r in units if r["class"] == "core" and r["kpyc"] is None and r["warp"] is not None]
    print("core kernels kpyc accepts and Warp rejects: %d" % len(kacc_wrej))
    for r in kacc_wrej[:20]:
        print("  %s:%d %s: Warp: %s" % (r["file"], r["line"], r["kernel"], r["warp"][:120]))
    print("\ntop kpyc rejections of core kernels Warp accepts:")
    reasons = collections.Counter(normalize(r["kpyc"]) for r in units if r["class"] == "core" and r["warp"] is None and r["kpyc"])
    for msg, cnt in reasons.most_common(25):
        print("  %5d  %s" % (cnt, msg))
    if bad:
        print("\n%d kernels: kpyc failed without a located error, or dropped the kernel" % bad)
        for r in units:
            if (r.get("kpyc") or "").startswith("("):
                print("  %s %s" % (r["unit"], r["kpyc"]))
    for r in silent:
        print("not extracted, without a reason: %s:%s %s" % (r["file"], r.get("line", "?"), r["kernel"]))
    if be is not None:
        coverage_backends(outdir, bindir, units, *be)
    return 1 if bad or silent else 0


def coverage_backends(outdir, bindir, units, jobs, nvcc, ptxas):
    """The units kpyc accepts, through kcuda+nvcc and kptx+ptxas: the table
    by class, the core and overall percentages, every failure."""
    import time
    acc = [r for r in units if r["kpyc"] is None]
    for r in acc:
        r["path"] = os.path.join(outdir, r["unit"])
    t0 = time.time()
    res, nvcc, ptxas = backends([r["path"] for r in acc], bindir, jobs, nvcc, ptxas,
                                os.path.join(outdir, "backend-cache.json"))
    print("\nback ends (%d units kpyc accepts, -j%d, %.0f s): kcuda | nvcc -ptx, kopt -p lower | kptx | ptxas, %s" % (
        len(acc), jobs, time.time() - t0, ARCH))
    backend_report(acc, res, nvcc, ptxas)
    both = lambda r: r["kpyc"] is None and res[r["path"]] == (None, None)  # noqa: E731
    wc = [r for r in units if r["class"] == "core" and r["warp"] is None]
    wa = [r for r in units if r["warp"] is None]
    print("core kernels Warp accepts %d: through kpyc, kcuda+nvcc and kptx+ptxas %d (%.1f%%)" % (
        len(wc), sum(map(both, wc)), 100.0 * sum(map(both, wc)) / max(len(wc), 1)))
    print("all extracted kernels Warp accepts %d: through kpyc, kcuda+nvcc and kptx+ptxas %d (%.1f%%)" % (
        len(wa), sum(map(both, wa)), 100.0 * sum(map(both, wa)) / max(len(wa), 1)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["extract", "coverage", "backends"])
    ap.add_argument("units", nargs="*", help="backends: the unit files")
    ap.add_argument("--out", help="extract, coverage: the folder of the units and results")
    ap.add_argument("--bin", default=os.environ.get("top_builddir", "."))
    ap.add_argument("--all-files", action="store_true", help="list every file, not only those with rejections")
    ap.add_argument("--backends", action="store_true", help="coverage: also every unit kpyc accepts through the back ends")
    ap.add_argument("-j", "--jobs", type=int, default=None, help="back-end jobs (default: make's -j, else the CPUs)")
    ap.add_argument("--nvcc", default=os.environ.get("NVCC") or "nvcc")
    ap.add_argument("--ptxas", default=os.environ.get("PTXAS") or "ptxas")
    a = ap.parse_intermixed_args()
    jobs = a.jobs or make_jobs()
    if a.command == "backends":
        if not a.units:
            ap.error("backends: no unit files")
        res, nvcc, ptxas = backends(a.units, a.bin, jobs, a.nvcc, a.ptxas)
        return 1 if backend_report([{"path": u} for u in a.units], res, nvcc, ptxas) else 0
    if not a.out:
        ap.error("%s: --out is required" % a.command)
    if a.command == "extract":
        index = extract(a.out)
        print("%d kernels, %d extracted" % (len(index), sum(1 for r in index if "unit" in r)))
        return 0
    return coverage(a.out, a.bin, a.all_files, (jobs, a.nvcc, a.ptxas) if a.backends else None)


if __name__ == "__main__":
    sys.exit(main())
