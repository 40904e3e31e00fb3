"""Tesseract, RapidOCR and digits on the same folder of labelled images (run through bench/compare-ocr).

Each engine reads every image as one number:

- Tesseract 5, the `tesseract` command once per image, as one text line (`--psm 7`) with only
  digits allowed (`-c tessedit_char_whitelist=0123456789`); its reading is the digits of its
  output. The time is the whole process's (start and loading its model included), as a user
  calling it per image gets.
- RapidOCR (rapidocr-onnxruntime, its default PP-OCR models and settings): the engine is loaded
  once and each image is one call on the file's path; its reading is the digits of all the text
  it finds, its boxes taken left to right.
- digits: `digits recognize --json` once on the folder (or on the files, with --limit or a label
  file that does not name every image); its reading is the `text` field, the space between lines
  dropped. The time per image is the process's wall time (model load included) over the images.

An engine has answered an image when its reading is a non-empty string of digits (for digits: a
`?`, an unsure digit, or no ink found is not an answer). Exact: answered and equal to the label;
right among answered: exact / answered. Labels that are not digits only ("4a", "-") can be
answered only wrongly; they are counted apart, with how many each engine answered with a number.
"""
import argparse
import csv
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINES = ["tesseract", "rapidocr", "digits"]
IMAGE_EXTENSIONS = {".png", ".jpg", ".jpeg", ".pgm", ".ppm", ".pnm"}
DIGITS_ONLY = re.compile(r"[0-9]+")


def fail(message):
    raise SystemExit(f"compare-ocr: {message}")


def read_labels(directory):
    """[(file name, label)] in the label file's order, from labels.csv or labels.tsv."""
    csv_path, tsv_path = os.path.join(directory, "labels.csv"), os.path.join(directory, "labels.tsv")
    rows = []
    if os.path.exists(csv_path):
        with open(csv_path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            header = [h.strip().lower() for h in next(reader, [])]
            if "filename" not in header or "label" not in header:
                fail(f"{csv_path}: the first line must be the header filename,label (it is {','.join(header)!r})")
            name_at, label_at = header.index("filename"), header.index("label")
            for number, row in enumerate(reader, start=2):
                if not row or all(not field.strip() for field in row):
                    continue
                if len(row) <= max(name_at, label_at):
                    fail(f"{csv_path}, line {number}: expected filename,label, got {','.join(row)!r}")
                rows.append((row[name_at].strip(), row[label_at].strip()))
        source = csv_path
    elif os.path.exists(tsv_path):
        with open(tsv_path, encoding="utf-8-sig") as f:
            for number, line in enumerate(f, start=1):
                line = line.rstrip("\r\n")
                if not line.strip():
                    continue
                fields = line.split("\t")
                if len(fields) < 2:
                    fail(f"{tsv_path}, line {number}: expected FILE<TAB>LABEL, got {line!r}")
                if number == 1 and [x.strip().lower() for x in fields[:2]] == ["filename", "label"]:
                    continue
                rows.append((fields[0].strip(), fields[1].strip()))
        source = tsv_path
    else:
        fail(f"no labels.csv (header filename,label) or labels.tsv (FILE<TAB>LABEL) in {directory}")
    if not rows:
        fail(f"{source} names no image")
    seen = set()
    for name, _ in rows:
        if name in seen:
            fail(f"{source} names {name} twice")
        seen.add(name)
    missing = [name for name, _ in rows if not os.path.isfile(os.path.join(directory, name))]
    if missing:
        fail(f"{len(missing)} of the {len(rows)} files named in {source} are not in {directory} (first: {missing[0]})")
    return rows, source


def machine():
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count()}


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def progress(engine, done, total, started):
    if done % 250 == 0 or done == total:
        elapsed = time.perf_counter() - started
        left = elapsed / done * (total - done)
        print(f"compare-ocr: {engine} {done}/{total} ({elapsed:.0f} s, about {left:.0f} s left)", file=sys.stderr)


def only_digits(text):
    return "".join(re.findall(r"[0-9]", text))


# Tesseract ------------------------------------------------------------------------------------

def find_tesseract(install):
    path = shutil.which("tesseract")
    if path:
        return path
    how = "apt-get install -y tesseract-ocr (Debian, Ubuntu; as root or with sudo)"
    if not install:
        fail(f"tesseract is not installed: {how}, or run bench/compare-ocr --install as root, "
             "or leave it out with --only rapidocr,digits")
    if os.geteuid() != 0:
        fail(f"--install installs Tesseract with apt-get and needs root: run as root, or {how}")
    if not shutil.which("apt-get"):
        fail("--install needs apt-get (Debian, Ubuntu); install Tesseract 5 with your system's package manager")
    print("compare-ocr: installing tesseract-ocr with apt-get", file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update"], ["apt-get", "install", "-y", "tesseract-ocr"]):
        if subprocess.run(cmd, env=env).returncode != 0:
            fail(f"{' '.join(cmd)} failed")
    return shutil.which("tesseract") or fail("tesseract is still not on PATH after apt-get install tesseract-ocr")


def run_tesseract(binary, directory, rows, threads):
    run = subprocess.run([binary, "--version"], capture_output=True, text=True)
    version = ((run.stdout or run.stderr).strip().splitlines() or ["tesseract ?"])[0]
    if not re.match(r"tesseract 5\.", version):
        print(f"compare-ocr: warning: {version}, not Tesseract 5", file=sys.stderr)
    env = dict(os.environ)
    if threads:
        env["OMP_THREAD_LIMIT"] = str(threads)
    results, errors = [], 0
    started = time.perf_counter()
    for done, (name, _) in enumerate(rows, start=1):
        cmd = [binary, os.path.join(directory, name), "stdout", "--psm", "7",
               "-c", "tessedit_char_whitelist=0123456789"]
        c0, t0 = children_cpu(), time.perf_counter()
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
            raw, problem = out.stdout, None if out.returncode == 0 else f"exit {out.returncode}: {out.stderr.strip()[:200]}"
        except subprocess.TimeoutExpired:
            raw, problem = "", "no answer in 120 s"
        ms, cpu_ms = (time.perf_counter() - t0) * 1000, (children_cpu() - c0) * 1000
        if problem:
            errors += 1
            if errors <= 3:
                print(f"compare-ocr: tesseract failed on {name} ({problem})", file=sys.stderr)
        read = only_digits(raw)
        results.append({"raw": raw.strip(), "read": read, "answered": read != "", "ms": ms, "cpu_ms": cpu_ms})
        progress("tesseract", done, len(rows), started)
    notes = ["one `tesseract` process per image (start and model load in its time)"]
    if errors:
        notes.append(f"{errors} image{'' if errors == 1 else 's'} failed (no answer)")
    return version.replace("tesseract", "Tesseract"), results, notes


# RapidOCR -------------------------------------------------------------------------------------

def run_rapidocr(directory, rows, threads):
    try:
        from importlib.metadata import version as package_version
        import onnxruntime
        from rapidocr_onnxruntime import RapidOCR
    except ImportError as e:
        fail(f"RapidOCR is not installed in this Python ({sys.executable}): {e}; "
             "bench/compare-ocr installs it into bench/.venv (pip install rapidocr-onnxruntime)")
    options = {"intra_op_num_threads": threads, "inter_op_num_threads": 1} if threads else {}
    engine = RapidOCR(**options)
    models = []
    try:  # the models its default configuration names (shipped in the package)
        import yaml
        from rapidocr_onnxruntime.main import DEFAULT_CFG_PATH
        with open(DEFAULT_CFG_PATH) as f:
            config = yaml.safe_load(f)
        models = [os.path.basename(config[part]["model_path"]).replace("_infer.onnx", "") for part in ("Det", "Rec")]
    except Exception:
        pass
    version = f"rapidocr-onnxruntime {package_version('rapidocr-onnxruntime')} (onnxruntime {onnxruntime.__version__}"
    version += (", " + " + ".join(models) if models else "") + ")"
    results, nothing = [], 0
    started = time.perf_counter()
    for done, (name, _) in enumerate(rows, start=1):
        path = os.path.join(directory, name)
        c0, t0 = time.process_time(), time.perf_counter()
        found, _ = engine(path)
        ms, cpu_ms = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
        found = found or []
        if not found:
            nothing += 1
        # Each found box: [four corners, text, score]; left to right by the box's leftmost corner.
        found = sorted(found, key=lambda box: min(point[0] for point in box[0]))
        raw = " | ".join(str(box[1]) for box in found)
        read = only_digits("".join(str(box[1]) for box in found))
        results.append({"raw": raw, "read": read, "answered": read != "", "ms": ms, "cpu_ms": cpu_ms})
        progress("rapidocr", done, len(rows), started)
    notes = ["engine loaded once, one call per image (file path to text)",
             f"no text found in {nothing} image{'' if nothing == 1 else 's'}"]
    return version, results, notes


# digits ---------------------------------------------------------------------------------------

def find_digits(given):
    for candidate in (given, os.environ.get("DIGITS"), os.path.join(ROOT, ".build/release/digits")):
        if not candidate:
            continue
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
        if candidate == given:
            fail(f"--digits {given}: no executable there")
    fail(f"no digits binary at {os.path.join(ROOT, '.build/release/digits')}: build it (swift build -c release), "
         "pass --digits PATH, or leave digits out with --only tesseract,rapidocr")


def run_digits(binary, directory, rows, whole_folder):
    run = subprocess.run([binary, "version"], capture_output=True, text=True)
    version = (run.stdout.strip().splitlines() or ["digits ?"])[0]
    inputs = [directory] if whole_folder else [os.path.join(directory, name) for name, _ in rows]
    cmd = [binary, "recognize", "--json"] + inputs
    print(f"compare-ocr: digits recognize --json on {len(rows)} images", file=sys.stderr)
    c0, t0 = children_cpu(), time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, children_cpu() - c0
    by_name = {}
    for line in out.stdout.splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            fail(f"digits recognize --json printed a line that is not JSON: {line[:200]!r}")
        by_name[os.path.basename(record.get("source", ""))] = record
    problems = [line for line in out.stderr.splitlines() if line.strip()]
    if out.returncode != 0 and not by_name:
        fail(f"{' '.join(cmd[:3])} … failed (exit {out.returncode}): {out.stderr.strip()[:500]}")
    for line in problems[:3]:
        print(f"compare-ocr: {line}", file=sys.stderr)
    ms, cpu_ms = wall * 1000 / len(rows), cpu * 1000 / len(rows)
    results, lines, missing = [], 0, 0
    for name, _ in rows:
        record = by_name.get(name)
        if record is None:
            missing += 1
            text = ""
        else:
            text = record.get("text") or ""
        if " " in text.strip():
            lines += 1
        read = text.replace(" ", "")
        results.append({"raw": text, "read": read, "answered": bool(DIGITS_ONLY.fullmatch(read)),
                        "ms": ms, "cpu_ms": cpu_ms, "confidence": (record or {}).get("confidence")})
    notes = [f"one process for the {len(rows)} images ({wall:.1f} s wall, model load included): "
             f"time per image = wall time / images"]
    if lines:
        notes.append(f"{lines} image{'' if lines == 1 else 's'} read as several lines (the space dropped before comparing)")
    if missing:
        notes.append(f"{missing} image{'' if missing == 1 else 's'} not answered at all (exit {out.returncode}; {len(problems)} lines on stderr)")
    return version, results, notes


# Report ---------------------------------------------------------------------------------------

def figures(results, indices):
    n = len(indices)
    if n == 0:
        return None
    answered = sum(results[i]["answered"] for i in indices)
    exact = sum(results[i]["exact"] for i in indices)
    return {"images": n, "exact": exact, "answered": answered,
            "exact_pct": 100 * exact / n, "answered_pct": 100 * answered / n,
            "right_among_answered_pct": 100 * exact / answered if answered else None,
            "median_ms": statistics.median(results[i]["ms"] for i in indices),
            "mean_cpu_ms": statistics.fmean(results[i]["cpu_ms"] for i in indices)}


def table(title, report, which):
    lines = [title, "",
             "| engine | version | images | exact | answered | right among answered | median ms/image | mean CPU ms/image |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, engine in report["engines"].items():
        f = engine[which]
        if f is None:
            continue
        right = "–" if f["right_among_answered_pct"] is None else f"{f['right_among_answered_pct']:.1f}%"
        lines.append(f"| {name} | {engine['version']} | {f['images']:,} | {f['exact_pct']:.1f}% ({f['exact']:,}) "
                     f"| {f['answered_pct']:.1f}% ({f['answered']:,}) | {right} | {f['median_ms']:.1f} "
                     f"| {f['mean_cpu_ms']:.1f} |")
    return lines


def main():
    parser = argparse.ArgumentParser(
        prog="bench/compare-ocr",
        description="Tesseract, RapidOCR and digits on the same folder of labelled images: exact match, "
                    "answered, right among answered, time per image.",
        epilog="DIR holds the images and labels.csv (header filename,label) or labels.tsv (FILE<TAB>LABEL lines). "
               "Only digit-only labels can be read exactly; the others are counted apart. See docs/images.md.")
    parser.add_argument("dir", metavar="DIR", help="folder of images with labels.csv or labels.tsv")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N labelled images (label file order)")
    parser.add_argument("--digits", metavar="PATH",
                        help="the digits executable (default $DIGITS, then .build/release/digits of this repository)")
    parser.add_argument("--only", default=",".join(ENGINES), metavar="LIST",
                        help="engines to run, comma-separated: tesseract,rapidocr,digits (default all three)")
    parser.add_argument("--threads", type=int, default=1, metavar="N",
                        help="threads for Tesseract (OMP_THREAD_LIMIT) and RapidOCR (ONNX Runtime intra-op); "
                             "0 leaves each engine's default (all cores). digits recognize picks its own. Default 1")
    parser.add_argument("--json", metavar="OUT", help="also write the figures and every image's readings to OUT")
    parser.add_argument("--install", action="store_true",
                        help="install Tesseract with apt-get if it is missing (needs root)")
    args = parser.parse_args()

    engines = [e.strip() for e in args.only.split(",") if e.strip()]
    unknown = [e for e in engines if e not in ENGINES]
    if unknown or not engines:
        parser.error(f"--only takes some of {','.join(ENGINES)} (got {args.only!r})")
    engines = [e for e in ENGINES if e in engines]
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    if args.threads < 0:
        parser.error("--threads must be 0 (the engines' defaults) or more")
    directory = os.path.abspath(args.dir)
    if not os.path.isdir(directory):
        fail(f"{args.dir}: not a folder")
    rows, label_file = read_labels(directory)
    if args.limit:
        rows = rows[:args.limit]
    # Check every engine is there before any of them runs for minutes.
    tesseract = find_tesseract(args.install) if "tesseract" in engines else None
    digits = find_digits(args.digits) if "digits" in engines else None
    if "rapidocr" in engines:
        try:
            import rapidocr_onnxruntime  # noqa: F401
        except ImportError:
            fail(f"RapidOCR is not installed in {sys.executable}: run through bench/compare-ocr, "
                 "which installs rapidocr-onnxruntime into bench/.venv")
    images_in_folder = {f for f in os.listdir(directory) if os.path.splitext(f)[1].lower() in IMAGE_EXTENSIONS}
    whole_folder = images_in_folder == {name for name, _ in rows}

    labels = [label for _, label in rows]
    numeric = [i for i, label in enumerate(labels) if DIGITS_ONLY.fullmatch(label)]
    other = [i for i, label in enumerate(labels) if not DIGITS_ONLY.fullmatch(label)]
    kinds = {}
    for i in other:
        kinds[labels[i]] = kinds.get(labels[i], 0) + 1

    report = {"machine": machine(), "dir": directory, "labels": label_file, "images": len(rows),
              "digit_only_labels": len(numeric), "other_labels": len(other), "threads": args.threads,
              "load_average": [round(os.getloadavg()[0], 2)], "engines": {}}
    per_engine = {}
    for engine in engines:
        if engine == "tesseract":
            version, results, notes = run_tesseract(tesseract, directory, rows, args.threads)
        elif engine == "rapidocr":
            version, results, notes = run_rapidocr(directory, rows, args.threads)
        else:
            version, results, notes = run_digits(digits, directory, rows, whole_folder)
        report["load_average"].append(round(os.getloadavg()[0], 2))
        for result, label in zip(results, labels):
            result["exact"] = result["answered"] and result["read"] == label
        per_engine[engine] = results
        report["engines"][engine] = {
            "version": version, "notes": notes,
            "all": figures(results, range(len(rows))),
            "digit_only_labels": figures(results, numeric),
            "other_labels_answered": sum(results[i]["answered"] for i in other),
        }

    m = report["machine"]
    lines = [f"Machine: {m['cpu']}, {m['cores']} cores; 1-minute load average "
             f"{min(report['load_average']):.2f}–{max(report['load_average']):.2f} during the run; "
             f"threads for Tesseract and RapidOCR: {args.threads or 'their defaults'}",
             f"Images: {len(rows):,} in {directory} ({os.path.basename(label_file)}"
             + (f", the first {args.limit:,}" if args.limit else "") + f"); {len(numeric):,} label{'' if len(numeric) == 1 else 's'} {'is' if len(numeric) == 1 else 'are'} digits only, "
             f"{len(other):,} {'is' if len(other) == 1 else 'are'} not", ""]
    lines += table(f"All {len(rows):,} images (a label that is not digits only is never read exactly):", report, "all")
    if numeric and other:
        lines.append("")
        lines += table(f"The {len(numeric):,} images whose labels are digits only:", report, "digit_only_labels")
    if other:
        shown = ", ".join(f"{label!r} {count}" for label, count in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))[:8])
        lines += ["", f"{len(other):,} label{'' if len(other) == 1 else 's'} not digits only ({shown}{', …' if len(kinds) > 8 else ''}); "
                  "answered with a number (so wrongly): "
                  + ", ".join(f"{name} {e['other_labels_answered']:,}" for name, e in report["engines"].items())]
    lines.append("")
    for name, e in report["engines"].items():
        lines.append(f"{name}: " + "; ".join(e["notes"]))
    text = "\n".join(lines)
    print(text)

    if args.json:
        report["items"] = [dict({"file": name, "label": label},
                                **{engine: {k: v for k, v in per_engine[engine][i].items()}
                                   for engine in per_engine})
                           for i, (name, label) in enumerate(rows)]
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
