"""Write the students' branch: the lessons and nothing a student should not see. ``python -m delivery.student_branch``.

A class pulls its lessons with nbgitpuller, which clones whatever branch the link names. Pointed at ``main`` or a
release branch, it copied the whole repository into every student's home — ``lmtie_edu/lessonNN/solutions.py``
included, which defeats a graded image that withholds them. The students' branch holds only:

- ``notebooks/`` — every lesson in both languages, executed, with ``notebooks/LICENSE.md``;
- ``LICENSE`` and a README that says what the branch is and where the package comes from.

No package, solutions, tools, tests or deployment files: the lessons import ``lmtie_edu`` from the environment
(the hub image, Binder, ``pip install``). The branch is written with git's plumbing from a committed ``--ref``
(the working tree and the current branch are not touched) and keeps its own history: each run adds one commit
on top of the branch's previous tip, so a student's next nbgitpuller click merges it like any upstream change.
A run that would change nothing adds nothing.

    python -m delivery.student_branch                  # students/main from main
    python -m delivery.student_branch --ref v0.2.0     # students/v0.2.0 from the release tag
    python -m delivery.student_branch --ref release/v0.2.0 --branch students/v0.2.0   # a fix during the term
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PREFIX = "students/"
# What a student's copy may hold; everything else in the repository stays behind.
STUDENT_PATH = re.compile(r"notebooks/([0-9][0-9]_[a-z0-9_]+\.ipynb|zh_CN/[0-9][0-9]_[a-z0-9_]+\.ipynb|LICENSE\.md)"
                          r"|LICENSE")
# Never on the branch, whatever STUDENT_PATH says (a test also searches the written tree for these).
FORBIDDEN = re.compile(r"(^|/)(solutions\.py|.*\.pyc|tools/|tests/|lmtie_edu/)")

README = """\
# lmtie_edu — the lessons

The notebooks of lmtie_edu {version} (from `{ref}`, commit {commit}), for students: `notebooks/` in English,
`notebooks/zh_CN/` in Chinese. Open a lesson and run it from the top.

The lessons import the `lmtie_edu` package, which your course environment provides (the hub's image, Binder, or
`pip install` as the course's README says); this branch holds no package, solutions, tools or tests.
Written by `python -m delivery.student_branch`; do not commit to it by hand.
"""


def branch_for(ref: str) -> str:
    """The students' branch of ``ref``: ``students/<ref>`` (a release tag ``vX.Y.Z`` gives ``students/vX.Y.Z``)."""
    return PREFIX + ref.removeprefix("refs/heads/").removeprefix("refs/tags/")


def git(*args: str, repo: Path = REPO, stdin: str | None = None, env: dict | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=repo, input=stdin, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    if done.returncode:
        raise SystemExit(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def student_entries(ref: str, repo: Path = REPO) -> list[tuple[str, str, str]]:
    """(mode, blob, path) of every file of ``ref`` that belongs on the students' branch."""
    entries = []
    for line in git("ls-tree", "-r", "--full-tree", ref, repo=repo).splitlines():
        meta, path = line.split("\t", 1)
        mode, kind, blob = meta.split()
        if kind == "blob" and STUDENT_PATH.fullmatch(path):
            entries.append((mode, blob, path))
    if not any(path.startswith("notebooks/0") for _, _, path in entries):
        raise SystemExit(f"{ref} has no lessons in notebooks/: is it a commit of this course?")
    leaked = [path for _, _, path in entries if FORBIDDEN.search(path)]
    if leaked:
        raise SystemExit(f"refusing to put {', '.join(leaked)} on a students' branch")
    return entries


def course_version(ref: str, repo: Path = REPO) -> str:
    """``__version__`` of lmtie_edu at ``ref``."""
    text = git("show", f"{ref}:lmtie_edu/__init__.py", repo=repo)
    match = re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE)
    return match[1] if match else "?"


def commit_files(branch: str, entries: list[tuple[str, str, str]], message: str, repo: Path = REPO,
                 author: dict | None = None) -> str | None:
    """Add one commit holding exactly ``entries`` ((mode, blob, path)) on top of ``branch``; its id, or None when
    the branch's tip already holds that tree. Git's plumbing only: the working tree and HEAD are not touched."""
    index = Path(git("rev-parse", "--git-path", "lmtie-branch-index", repo=repo).strip())
    index = index if index.is_absolute() else repo / index
    env = {"GIT_INDEX_FILE": str(index)}
    try:
        git("read-tree", "--empty", repo=repo, env=env)
        git("update-index", "--add", "--index-info", repo=repo, env=env,
            stdin="".join(f"{mode} {blob}\t{path}\n" for mode, blob, path in entries))
        tree = git("write-tree", repo=repo, env=env).strip()
    finally:
        index.unlink(missing_ok=True)
    tip = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"], cwd=repo,
                         capture_output=True, text=True).stdout.strip()
    if tip and git("rev-parse", f"{tip}^{{tree}}", repo=repo).strip() == tree:
        return None
    parents = ["-p", tip] if tip else []
    new = git("commit-tree", tree, *parents, "-m", message, repo=repo, env=author).strip()
    git("update-ref", f"refs/heads/{branch}", new, *([tip] if tip else []), repo=repo)
    return new


def blob(text: str, repo: Path = REPO) -> str:
    """The id of ``text`` stored as a blob in ``repo``."""
    return git("hash-object", "-w", "--stdin", repo=repo, stdin=text).strip()


def write_branch(ref: str, branch: str, repo: Path = REPO, author: dict | None = None) -> str | None:
    """Add one commit with the students' files of ``ref`` to ``branch``; its id, or None when nothing changed.

    ``author``: GIT_AUTHOR_*/GIT_COMMITTER_* variables for the commit (default: git's configured identity)."""
    commit = git("rev-parse", "--verify", f"{ref}^{{commit}}", repo=repo).strip()
    entries = student_entries(commit, repo)
    readme = README.format(version=course_version(commit, repo), ref=ref, commit=commit[:12])
    entries.append(("100644", blob(readme, repo), "README.md"))
    return commit_files(branch, entries, f"Students' lessons from {ref} ({commit[:12]})", repo, author)


def branch_command(description: str, write, name_for, argv: list[str] | None) -> int:
    """The command line of a branch writer: ``write(ref, branch, repo=...)`` to ``--branch`` or ``name_for(ref)``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--ref", default="main", help="the commit, branch or tag to write the branch from")
    parser.add_argument("--branch", help=f"the branch to write (default: {name_for('<ref>')})")
    parser.add_argument("--repo", type=Path, default=REPO, help="the course's git repository (default: this one)")
    args = parser.parse_args(argv)
    branch = args.branch or name_for(args.ref)
    new = write(args.ref, branch, repo=args.repo)
    print(f"{branch}: {'unchanged' if new is None else 'now ' + new[:12]}; push it with `git push origin {branch}`")
    return 0


def main(argv: list[str] | None = None) -> int:
    return branch_command(__doc__.splitlines()[0], write_branch, branch_for, argv)

if __name__ == "__main__":
    sys.exit(main())
