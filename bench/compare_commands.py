#!/usr/bin/python3
"""Runs two builds of the `inputanim` command over one corpus and says where they differ.

    bench/compare_commands.py OLD NEW [--scratch DIR] [--jobs N]

A refactor that promises "behaviour unchanged" is checked here: every command, with a set of
options each, over recordings of every version, layout and block choice, damaged copies of them
(cut short, bytes changed), gzip files, archives, the real 2019 recordings when present
(../shared/recordings) and the fuzz corpora. Each case runs OLD and NEW from the same working
folder with the same arguments; their standard output, standard error, exit status and every file
written must be byte for byte the same. When a flag has a new canonical spelling, NEW runs the
case a second time with the canonical spelling, which must give OLD's bytes with no note (a message about the flag's value names the
flag as typed); the run
with the old spelling may differ from OLD only by the one-line note that names the canonical
spelling (NOTE below).

Prints one line per difference and a count; exits 1 when any case differs, 0 otherwise.
"""

import argparse
import concurrent.futures
import gzip
import hashlib
import os
import pathlib
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
RECORDINGS = ROOT.parent / "shared" / "recordings"
# The line a deprecated spelling adds on stderr (tools/commands/options.cpp, `alias_note`).
NOTE = re.compile(rb"^inputanim [a-z]+: note: .*\n", re.M)
TIMING = re.compile(rb", [0-9.]+ s \([0-9]+ files/s\)$", re.M)

# Today's spellings that have a canonical one: (command, old flag) -> canonical flag. A flag that
# takes a value keeps it; metrics --json/--csv and validate/info --json become --format VALUE.
CANONICAL = {
    ("sample", "--to"): ["--until"],
    ("convert", "--to-time"): ["--until"],
    ("export", "--to-time"): ["--until"],
    ("export", "--to"): ["--format"],
    ("convert", "--to"): ["--version"],
    ("metrics", "--json"): ["--format", "json"],
    ("metrics", "--csv"): ["--format", "csv"],
    ("validate", "--json"): ["--format", "json"],
}


def canonical(args):
    """The arguments with every old spelling replaced by its canonical one (None if none)."""
    command, out, changed = args[0], [args[0]], False
    for a in args[1:]:
        if (command, a) in CANONICAL:
            out += CANONICAL[(command, a)]
            changed = True
        else:
            out.append(a)
    return out if changed else None


def run(binary, args, cwd):
    """Runs one case in a fresh `cwd`; returns what it printed, its status and what it wrote."""
    shutil.rmtree(cwd, ignore_errors=True)
    cwd.mkdir(parents=True)
    p = subprocess.run([binary] + args, cwd=cwd, capture_output=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    # index's summary line ends with how long the run took.
    stderr = TIMING.sub(b"", p.stderr)
    written = {}
    for f in sorted(cwd.rglob("*")):
        if not f.is_file():
            continue
        if f.suffix == ".sqlite":
            # A database is compared by its rows and schema, not its pages.
            written[str(f.relative_to(cwd))] = database_text(f)
        else:
            written[str(f.relative_to(cwd))] = hashlib.sha256(f.read_bytes()).hexdigest().encode()
    return p.stdout, stderr, p.returncode, written


def database_text(path):
    """A database's schema and rows as text, each `indexed_at` (the time of the run) left out."""
    with sqlite3.connect(path) as db:
        text = [s for (s,) in db.execute("SELECT sql FROM sqlite_master ORDER BY name")
                if s is not None]
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                   "ORDER BY name"):
            columns = [c[1] for c in db.execute(f'PRAGMA table_info("{table}")')
                       if c[1] != "indexed_at"]
            listed = ", ".join(f'"{c}"' for c in columns)
            text += [repr(r) for r in db.execute(f'SELECT {listed} FROM "{table}" ORDER BY {listed}')]
    return "\n".join(text).encode()


def compare(case):
    name, args, canonical_too, old, new, work = case
    base = work / name
    a = run(old, args, base / "old")
    b = run(new, args, base / "new")
    problems = []
    c = canonical(args) if canonical_too else None
    if c is not None:
        # An OLD built after the rename prints the note too: its bytes without it are the ones
        # both spellings must give.
        a = (a[0], NOTE.sub(b"", a[1], count=1), a[2], a[3])
        # The old spelling: OLD's bytes plus at most the note.
        stripped = (b[0], NOTE.sub(b"", b[1], count=1), b[2], b[3])
        if stripped != a:
            problems.append(describe(a, stripped, args, "old spelling"))
        b = run(new, c, base / "canonical")
        # A message about a flag's value names the flag as it was typed.
        stderr = b[1]
        for (command, spelling), replacement in CANONICAL.items():
            if command == args[0] and spelling in args and len(replacement) == 1:
                stderr = re.sub(re.escape(replacement[0].encode()) + rb"(?![a-z-])",
                                spelling.encode(), stderr)
        b = (b[0], stderr, b[2], b[3])
        if b != a:
            problems.append(describe(a, b, c, "canonical spelling"))
    elif b != a:
        problems.append(describe(a, b, args, ""))
    shutil.rmtree(base, ignore_errors=True)
    return problems


def describe(a, b, args, how):
    what = [k for k, x, y in zip(("stdout", "stderr", "status", "files"), a, b) if x != y]
    detail = ""
    if "stderr" in what:
        detail = f" old {a[1][:160]!r} new {b[1][:160]!r}"
    elif "status" in what:
        detail = f" old {a[2]} new {b[2]}"
    return f"{' '.join(args)}{' (' + how + ')' if how else ''}: {', '.join(what)} differ{detail}"


def make_corpus(gen, folder):
    """Recordings of every version, layout and block choice, damaged copies, gzip files, archives,
    the 2019 recordings and the fuzz corpora, under `folder`; returns their paths, relative to the
    cases' working folders (two levels below `folder`'s parent)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    made = []
    for version, layouts in (("1.0", ["full"]), ("1.1", ["compact", "full"])):
        for layout in layouts:
            for blocks in ([], ["--no-camera"], ["--no-hands"], ["--no-gaze"],
                           ["--no-hands", "--no-gaze"]):
                for markers in ("0", "3"):
                    name = f"v{version}-{layout}{''.join(blocks)}-m{markers}.bin"
                    subprocess.run([gen, "gen", "--version", version, "--layout", layout,
                                    "--seconds", "2", "--markers", markers, "--seed",
                                    str(len(made) + 1), "-o", str(folder / name)] + blocks,
                                   check=True)
                    made.append(folder / name)
    subprocess.run([gen, "gen", "--seconds", "1", "--raw", "-o", str(folder / "raw.bin")],
                   check=True)
    made.append(folder / "raw.bin")
    damaged = []
    for source in made[:: 4]:
        data = source.read_bytes()
        for cut in (0, 7, 8, 12, 20, 40, 100, len(data) // 2, len(data) - 1):
            p = folder / f"{source.stem}-cut{cut}.bin"
            p.write_bytes(data[:cut])
            damaged.append(p)
        for at in (8, 12, 16, 20, 24, 30, 60, 200, len(data) // 3, len(data) - 3):
            for value in (0x7F, 0xFF):
                b = bytearray(data)
                b[at] = value
                p = folder / f"{source.stem}-set{at}-{value:x}.bin"
                p.write_bytes(bytes(b))
                damaged.append(p)
        p = folder / f"{source.stem}-tail.bin"
        p.write_bytes(data + b"\0\0\0\0")
        damaged.append(p)
    for source in made[:3]:
        p = folder / (source.name + ".gz")
        p.write_bytes(gzip.compress(source.read_bytes(), mtime=0))
        damaged.append(p)
    with tarfile.open(folder / "some.tar", "w", format=tarfile.USTAR_FORMAT) as t:
        for source in made[:4] + damaged[:3]:
            info = t.gettarinfo(source, arcname=source.name)
            info.mtime = 0
            with open(source, "rb") as f:
                t.addfile(info, f)
    with zipfile.ZipFile(folder / "some.zip", "w", zipfile.ZIP_STORED) as z:
        for source in made[4:8]:
            z.writestr(zipfile.ZipInfo(source.name, (1980, 1, 1, 0, 0, 0)), source.read_bytes())
    whole = made + damaged + [folder / "some.tar", folder / "some.zip"]
    if RECORDINGS.is_dir():
        for r in sorted(RECORDINGS.glob("*.bin")):
            shutil.copyfile(r, folder / r.name)
            whole.append(folder / r.name)
    for corpus in ("parse", "validate", "stream", "mutate", "archive", "convert", "export"):
        for f in sorted((ROOT / "fuzz" / "corpus" / corpus).glob("*")):
            p = folder / f"fuzz-{corpus}-{f.name}"
            shutil.copyfile(f, p)
            whole.append(p)
    return [os.path.join("..", "..", "..", folder.name, p.name) for p in whole]


def cases(files, corpus_dir):
    """The (arguments) of every case: each command with a set of options, over each file."""
    per_file = [
        ["info"], ["info", "--json"], ["info", "--level", "full", "--json"],
        ["validate"], ["validate", "--json"], ["validate", "--level", "structure"],
        ["validate", "--layout", "full"], ["validate", "--layout", "2019-06", "--json"],
        ["validate", "--layout", "2019-05"], ["validate", "--upload-limits", "--json"],
        ["validate", "--max-markers", "1", "--max-keyframes-per-curve", "50"],
        ["dump"], ["dump", "--format", "csv"], ["dump", "--format", "csv", "--markers"],
        ["dump", "--curve", "camera.**", "--layout", "2019-06"],
        ["sample", "--rate", "30"], ["sample", "--rate", "7.5", "--format", "json"],
        ["sample", "--rate", "50", "--from", "0.25", "--to", "1", "--curve", "hands.**"],
        ["sample", "--rate", "30", "--level", "structure", "--to", "0.5"],
        ["metrics"], ["metrics", "--csv"], ["metrics", "--json", "--rate", "30"],
        ["metrics", "--events", "pinch"], ["metrics", "--events", "fixations", "--csv"],
        ["metrics", "--level", "structure"],
        ["export", "--to", "glb", "-o", "out.glb"],
        ["export", "--to", "gltf", "--rate", "20", "--from", "0.5", "--to-time", "1.5",
         "-o", "out.gltf"],
        ["export", "--to", "anim", "-o", "out.anim"],
        ["export", "--to", "glb", "--level", "structure", "-o", "out.glb"],
        ["convert", "-o", "out.bin"], ["convert", "--to", "1.0", "-o", "out.bin"],
        ["convert", "--layout", "full", "-o", "out.bin"],
        ["convert", "--from", "0.5", "--to-time", "1.25", "--shift-to-zero", "-o", "out.bin"],
        ["convert", "--thin", "--layout", "compact", "-o", "out.bin"],
        ["convert", "--level", "structure", "--from", "1", "-o", "out.bin"],
    ]
    out = []
    for i, f in enumerate(files):
        for j, options in enumerate(per_file):
            # Options first, the file last: the files' names are the same for both builds.
            out.append((f"f{i}-o{j}", options + [f], True))
    folder = os.path.join("..", "..", "..", corpus_dir.name)
    whole = [
        ["index", "--jsonl", "-", folder], ["index", "--level", "full", "--metrics", "--jsonl",
                                            "-", folder],
        ["index", "--sqlite", "db.sqlite", "--jsonl", "rows.jsonl", folder],
        ["index", "--no-archives", "--jsonl", "-", "--shard", "1/3", folder],
        ["info", "--json", folder], ["validate", "--json", "-"],
        ["gen", "-o", "g.bin"], ["gen", "--version", "1.0", "--markers", "2", "-o", "g.bin"],
        ["gen", "--layout", "full", "--no-gaze", "--seconds", "3", "--rate", "30", "-o", "g.bin"],
        ["gen", "--count", "3", "--dir", "many", "--seconds", "1"],
    ]
    # Usage errors: the same message from both; their canonical spellings are errors of their own.
    errors = [
        ["gen", "--seconds", "-1", "-o", "g.bin"], ["sample"], ["sample", "--rate", "0", "x"],
        ["convert", "--from", "2", "--to-time", "1", "-o", "out.bin", files[0]],
        ["export", "--to", "pdf", "-o", "out.pdf", files[0]],
        ["metrics", "--json", "--csv", files[0]], ["nonsense"],
    ]
    out += [(f"w{k}", args, True) for k, args in enumerate(whole)]
    out += [(f"e{k}", args, False) for k, args in enumerate(errors)]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--scratch", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                          "inputanim-compare"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--same-spellings", action="store_true",
                        help="run no case with a canonical spelling (two builds that have none)")
    a = parser.parse_args()
    old, new = os.path.abspath(a.old), os.path.abspath(a.new)
    scratch = pathlib.Path(a.scratch).resolve()
    if ROOT in scratch.parents or scratch == ROOT:
        sys.exit("compare_commands: --scratch must be outside the repository")
    corpus_dir = scratch / "corpus"
    files = make_corpus(old, corpus_dir)
    work = scratch / "runs"
    todo = [(name, args, again and not a.same_spellings, old, new, work)
            for name, args, again in cases(files, corpus_dir)]
    differ = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for problems in pool.map(compare, todo, chunksize=16):
            for p in problems:
                print(p)
                differ += 1
    print(f"{len(todo)} cases over {len(files)} files: {differ} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
