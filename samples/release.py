#!/usr/bin/env python3
"""samples/release.py OUT — package a built dataset for release.

Writes, beside the JSON Lines splits of OUT:
  OUT/parquet/SPLIT-NNNNN-of-MMMMM.parquet  each split in parquet files whose
                                            row groups hold 100-300 MB of rows
                                            in memory (pyarrow; zstd)
  OUT/metadata.json                         every file of the release with its
                                            sha256, size and record count
Needs pyarrow; without it, says so and exits 77 (the parquet part is optional,
the JSON Lines splits are the dataset).  Same input, same bytes.
"""
import hashlib
import json
import os
import sys

ROW_GROUP_BYTES = 200 * 1024 * 1024   # in memory: between 100 and 300 MB
FILE_BYTES = 1024 * 1024 * 1024       # at most ~1 GB of rows per parquet file
SPLITS = ("train", "val", "test")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main():
    if len(sys.argv) != 2:
        print("usage: release.py OUT", file=sys.stderr)
        return 2
    out = sys.argv[1]
    try:
        import pyarrow as pa
        import pyarrow.json as pj
        import pyarrow.parquet as pq
    except ImportError:
        print("release.py: pyarrow is not installed: no parquet files (pip install pyarrow)", file=sys.stderr)
        return 77
    files = []
    pqdir = os.path.join(out, "parquet")
    os.makedirs(pqdir, exist_ok=True)
    for old in os.listdir(pqdir):
        os.remove(os.path.join(pqdir, old))
    for split in SPLITS:
        src = os.path.join(out, split + ".jsonl")
        if not os.path.exists(src):
            continue
        table = pj.read_json(src, read_options=pj.ReadOptions(block_size=64 << 20))
        per_row = max(1, table.nbytes // max(1, table.num_rows))
        group = max(1, ROW_GROUP_BYTES // per_row)
        per_file = max(group, (FILE_BYTES // per_row) // group * group)
        nfiles = max(1, -(-table.num_rows // per_file))
        for i in range(nfiles):
            part = table.slice(i * per_file, per_file)
            name = "%s-%05d-of-%05d.parquet" % (split, i, nfiles)
            pq.write_table(part, os.path.join(pqdir, name), row_group_size=group,
                           compression="zstd", write_statistics=False)
            files.append(("parquet/" + name, part.num_rows))
        files.append((split + ".jsonl", table.num_rows))
    for extra in ("stats.json", "README.md"):
        if os.path.exists(os.path.join(out, extra)):
            files.append((extra, None))
    meta = {"files": []}
    for rel, rows in sorted(files):
        path = os.path.join(out, rel)
        entry = {"path": rel, "bytes": os.path.getsize(path), "sha256": sha256(path)}
        if rows is not None:
            entry["records"] = rows
        meta["files"].append(entry)
    meta["records"] = sum(e.get("records", 0) for e in meta["files"] if e["path"].endswith(".jsonl"))
    with open(os.path.join(out, "metadata.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    print("release.py: %d records; parquet in %s; metadata.json" % (meta["records"], pqdir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
