# tests/kgen/deadweight.awk: dead weight in kpyc's kir, an independent reader of
# kgen's output.  Per kernel and @wp.func: parameters never used; no-ops (sub, div,
# min, max of equal operands, where(c, x, x), (a + x) - x / (a * x) / x with x a value,
# an if statement whose then-branch is empty); and repeats: a pure instruction with
# the same operator and operands as one in the same or an enclosing region (so it
# dominates; the same result type too: casts of one value to two types differ),
# except component and field reads, casts of nothing, draws, calls, and
# updates `x op= c` next to an earlier `x op c`; and dead values: a value of a
# pure instruction (or a loop's result) that nothing uses (a store that is
# overwritten or never read).  Prints one line per finding and
# "functions N unused U noop O dup D dead X" last.
function flush(   p) {
	if (fn == "") return
	for (p in params) if (!(p in used)) { print "unused " fn " " p; nun++ }
	for (p in vdef) if (!(p in used)) { print "dead " fn " " vdef[p]; ndead++ }
	delete params; delete used; delete vdef; fn = ""
}
function key_visible(k,   d) { for (d = depth; d >= 0; d--) if ((d, k) in seen) return 1; return 0 }
/^(kernel|func) / {
	flush(); fn = $2; sub(/\(.*/, "", fn); nfn++
	s = $0; sub(/^[^(]*\(/, "", s); sub(/\)[^)]*$/, "", s)
	while (match(s, /%[A-Za-z0-9_.]+/)) { params[substr(s, RSTART, RLENGTH)] = 1; s = substr(s, RSTART + RLENGTH) }
	depth = 0; delete seen; delete def; next
}
fn == "" { next }
/^}/ { flush(); next }
{
	line = $0; sub(/ *; loc .*/, "", line)
	# uses: every %name right of '=' (or in a statement without '=')
	rhs = line; if (rhs ~ /^ *%[^=]*= /) sub(/^[^=]*= /, "", rhs)
	r = rhs
	while (match(r, /%[A-Za-z0-9_.]+/)) { used[substr(r, RSTART, RLENGTH)] = 1; r = substr(r, RSTART + RLENGTH) }
	if (line ~ /^ *} else {$/) { for (k in seen) { split(k, kk, SUBSEP); if (kk[1] == depth) delete seen[k] }; thenempty = 0; next }
	if (line ~ /^ *}$/) { for (k in seen) { split(k, kk, SUBSEP); if (kk[1] == depth) delete seen[k] }; depth--; next }
	if (line ~ /{$/) { depth++; if (line ~ /^ *if %/) { opened = NR } ; next }
	if (line ~ /^ *yield/ && opened == NR - 1) { print "noop " fn " empty then-branch"; nnoop++ }
	if (line !~ /^ *%[A-Za-z0-9_.]+ = /) next
	dst = line; sub(/^ */, "", dst); sub(/ .*/, "", dst)
	body = line; sub(/^[^=]*= /, "", body)
	op = body; sub(/ .*/, "", op)
	if (line !~ /^ *%[^=]*, %[^=]*= / && op !~ /^(atomic_|call|rand)/) vdef[dst] = dst " = " body
	args = body; sub(/^[^ ]* ?/, "", args); sub(/ : [^:]*$/, "", args)
	n = split(args, a, /, /)
	if ((op == "sub" || op == "div" || op == "min" || op == "max") && n == 2 && a[1] == a[2] && a[1] ~ /^%/) { print "noop " fn " " dst " = " body; nnoop++ }
	if (op == "where" && n == 3 && a[2] == a[3]) { print "noop " fn " " dst " = " body; nnoop++ }
	if (n == 2 && (a[1] in def) && a[2] ~ /^%/) {
		split(def[a[1]], dd, SUBSEP)
		if (((op == "sub" && dd[1] == "add") || (op == "add" && dd[1] == "sub") || (op == "div" && dd[1] == "mul")) && dd[3] == a[2]) { print "noop " fn " " dst " = " body " after " def[a[1]]; nnoop++ }
	}
	if (n == 2) def[dst] = op SUBSEP a[1] SUBSEP a[2]
	if (op ~ /^(extract|field|transform_get_translation|transform_get_rotation|tid|shape|rand|randf|randi|randn|rand_init|call|atomic_|noise|pnoise|curlnoise|sample_|poisson|printf)/ || args !~ /%/) next
	# the result type is part of the key: cast %n : f64 and cast %n : f32 differ
	ty = ""; if (match(body, / : [^:]*$/)) ty = substr(body, RSTART)
	k = op " " args ty
	db = dst; sub(/\.[0-9]+$/, "", db); ab = a[1]; sub(/\.[0-9]+$/, "", ab)
	if (db == ab) next # x *= c beside an earlier x * c: an update, not a repeat
	if (key_visible(k)) { print "dup " fn " " dst " = " body; ndup++ } else seen[depth, k] = 1
}
END { flush(); printf "functions %d unused %d noop %d dup %d dead %d\n", nfn, nun + 0, nnoop + 0, ndup + 0, ndead + 0 }
