"""Build testdata/corpus/cases.jsonl.gz (the diffs) from manifest.jsonl and the snapshots.

Usage:
    scripts/corpus build                       # write cases.jsonl.gz
    scripts/corpus build --check               # rebuild in memory, compare byte for byte
    scripts/corpus build --corpus testdata/corpus-fresh [--check]   # another corpus directory

Each manifest line becomes one line {"id": ..., "diff": ...} in manifest order. The diff is
    git diff --no-color --no-ext-diff --no-textconv -M50% -U3 <commit> <parent>   (risky, reversed)
    git diff --no-color --no-ext-diff --no-textconv -M50% -U3 <parent> <commit>   (benign, forward)
with a/ b/ prefixes, run with no user or system git configuration. The gzip stream has
mtime 0, no file name and compression level 9, so a rebuild is byte-identical. Each diff's
`git patch-id --stable` must equal the manifest's `patch_id`, or the build fails.
Needs the snapshots listed in scripts/jevtools/corpus/fetch-list.txt (in /work/.mirror or --mirrors).
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import sys

from jevtools.corpus.common import (
    DEFAULT_MIRRORS, add_corpus_arg, corpus_paths, diff_args, git, mirror_dir, refuse_blocked,
)


def build(mirrors: str, manifest: str) -> bytes:
    with open(manifest, encoding="utf-8") as f:
        cases = [json.loads(l) for l in f]
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        dirs: dict[str, str] = {}
        for c in cases:
            refuse_blocked(c["repo"])
            gd = dirs.get(c["repo"]) or dirs.setdefault(c["repo"], mirror_dir(mirrors, c["repo"]))
            raw = git(gd, *diff_args(c["commit"], c["parent"], c["direction"]))
            pid = git(gd, "patch-id", "--stable", inp=raw).split()[0].decode()
            if pid != c["patch_id"]:
                raise SystemExit(f"{c['id']}: patch id {pid} differs from the manifest's {c['patch_id']}")
            line = json.dumps({"id": c["id"], "diff": raw.decode("utf-8")}, ensure_ascii=False) + "\n"
            gz.write(line.encode("utf-8"))
    return buf.getvalue()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", default=DEFAULT_MIRRORS)
    ap.add_argument("--check", action="store_true")
    add_corpus_arg(ap)
    args = ap.parse_args()
    cp = corpus_paths(args.corpus)
    data = build(args.mirrors, cp.manifest)
    if args.check:
        with open(cp.cases, "rb") as f:
            old = f.read()
        if old != data:
            print("cases.jsonl.gz differs from a rebuild", file=sys.stderr)
            return 1
        print(f"cases.jsonl.gz reproduced ({len(data)} bytes)")
        return 0
    with open(cp.cases, "wb") as f:
        f.write(data)
    print(f"wrote {cp.cases}: {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
