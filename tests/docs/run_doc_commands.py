#!/usr/bin/env python3
"""Runs the shell blocks the docs show a user, so they cannot drift from what works.

A fenced ```sh block right after a line `<!-- docs-test -->` in README.md or
docs/getting-started.md is run with bash -e in a scratch folder that links the tree's
examples/ and build/, with /opt/openaclnn replaced by a scratch prefix (and build/pytorch by
build/release when only the latter exists: `make test` builds that one).

usage: run_doc_commands.py <source dir>
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

PAGES = ["README.md", "docs/getting-started.md"]
BLOCK = re.compile(r"<!-- docs-test -->\n```sh\n(.*?)```", re.S)


def main():
    source = pathlib.Path(sys.argv[1]).resolve()
    blocks = []
    for page in PAGES:
        text = (source / page).read_text()
        found = BLOCK.findall(text)
        if not found:
            sys.exit(f"{page}: no block marked <!-- docs-test -->")
        blocks += [(page, block) for block in found]
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        for name in ("examples", "build", "bench"):
            (work / name).symlink_to(source / name)
        prefix = work / "prefix"
        env = dict(os.environ)
        env.pop("LD_LIBRARY_PATH", None)
        env.pop("PYTHONPATH", None)
        for page, block in blocks:
            script = block.replace("/opt/openaclnn", str(prefix))
            if not (source / "build/pytorch").exists():
                script = script.replace("build/pytorch", "build/release")
            print(f"=== {page}\n{script}", flush=True)
            result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=work, env=env)
            if result.returncode != 0:
                sys.exit(f"{page}: a documented block failed (exit {result.returncode})")
    print(f"docs commands passed: {len(blocks)} blocks")


if __name__ == "__main__":
    main()
