#!/usr/bin/env python3
"""bench/realprogs/tree.py: process trees, native vs recorded (#16).

usage: bench/realprogs/tree.py BUILD_DIR [--runs 3] > result.json

Every process of the tree is recorded as a member of the same recording
(docs/formats/members.md). Cases: a shell pipeline, a shell running eight
vfork'ed commands, `make -j2` with four recipes, bash command substitutions and pipelines, python3 subprocess.
Timing is run.py's (native and recorded alternate, medians); each case also
reports how many processes its last recording held.
"""
import json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import bench  # noqa: E402


def cases(work):
    mk = os.path.join(work, "mk")
    os.makedirs(mk, exist_ok=True)
    with open(os.path.join(mk, "Makefile"), "w") as f:
        f.write("all: a b c d\n" + "".join(f"{t}:\n\techo {t} > {t}\n" for t in "abcd"))
    return [
        ("sh pipeline", ["/bin/sh", "-c", "printf '%s' 'seven b' | wc -c"]),
        # dash vforks a simple command that is not its last one
        ("sh 8 vforks", ["/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8; do /bin/true; done; true"]),
        ("make -j2", ["make", "-C", mk, "-B", "-j2"]),
        ("bash", ["bash", "-c", "x=$(echo hi); y=$(date +%s); for i in 1 2 3; do echo $i | cat >/dev/null; done"]),
        ("python3 subprocess", ["python3", "-c", "import subprocess; subprocess.run(['true']); "
                                "subprocess.run(['sh', '-c', 'echo hi | tr a-z A-Z'])"]),
    ]


def processes(slsdbg, cmd, work):
    rec = os.path.join(work, "count.rec")
    subprocess.run([slsdbg, "record", "-o", rec, "--"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    info = subprocess.run([slsdbg, "info", rec, "--json"], capture_output=True, text=True)
    subprocess.run(["rm", "-rf", rec])
    return len(json.loads(info.stdout)["processes"]) or 1 if info.returncode == 0 else None


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        raise SystemExit(__doc__)
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 3
    slsdbg = os.path.join(args[0], "cli", "slsdbg")
    work = tempfile.mkdtemp(prefix="slsdbg-bench-tree.")
    result = {"runs": runs, "loadavg_start": os.getloadavg(), "programs": {}}
    for name, cmd in cases(work):
        r = bench(slsdbg, name, cmd, runs, work, [])
        r["processes"] = processes(slsdbg, cmd, work)
        result["programs"][name] = r
        print(name, r.get("slowdown"), r["processes"], file=sys.stderr)
    result["loadavg_end"] = os.getloadavg()
    subprocess.run(["rm", "-rf", work])
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
