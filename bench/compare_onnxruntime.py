"""digits against ONNX Runtime on the identical graph (run through bench/compare-onnxruntime).

1. Exports the network with `digits export-onnx` (each layer kind writes its own ONNX operators, so
   this script knows no layer) and validates the bytes with `onnx.checker.check_model`. ONNX
   Runtime does its own batch-norm folding and fusions.
2. Runs it on the 10,000 MNIST test images and compares with `digits eval --predictions` (top-1
   agreement: the best of the ten digit outputs, as `digits eval` predicts, when the model also has
   a "not a digit" output) and with the logits of `digits bench --logits` (largest absolute
   difference, over every output).
3. Times ONNX Runtime at the batch sizes and thread counts of `digits bench` (images per second,
   median of runs after a warm-up, same number of images per run), and runs `digits bench` in the
   same process, alternating the two `--rounds` times so that both see the same machine load.
4. Prints a table with the ratios (digits / ONNX Runtime; above 1 means digits is faster).

With `--check N` it does only the export and the comparison on the first N test images, and fails
(exit status 1) unless every logit is within 1e-4 of digits' and every top-1 answer is the same:
the end-to-end test of the export (scripts/check-onnx-export).
"""
import argparse
import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = [(1, 1), (64, 1), (1000, 1), (1000, 2)]


def export_model(digits, weights, directory):
    """The ONNX model `digits export-onnx` writes for the weight file, checked by the ONNX checker."""
    path = os.path.join(directory, "model.onnx")
    run = subprocess.run([digits, "export-onnx", "--weights", weights, "--out", path], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"digits export-onnx failed (exit {run.returncode}): {run.stderr.strip()}")
    with open(path, "rb") as f:
        model_bytes = f.read()
    onnx.checker.check_model(onnx.load_model_from_string(model_bytes), full_check=True)
    return model_bytes


def find_mnist(given):
    candidates = [given] if given else []
    candidates += [os.environ.get("MNIST_DIR"), os.path.join(ROOT, "Fixtures/mnist"), os.path.join(ROOT, "../shared/data/mnist")]
    for d in candidates:
        if not d:
            continue
        for name in ("t10k-images-idx3-ubyte", "t10k-images-idx3-ubyte.gz"):
            if os.path.exists(os.path.join(d, name)):
                return d
    raise SystemExit("MNIST test set not found: pass --data DIR or run scripts/fetch-mnist")


def read_idx(directory, stem):
    path = os.path.join(directory, stem)
    if os.path.exists(path):
        with open(path, "rb") as f:
            data = f.read()
    else:
        with gzip.open(path + ".gz", "rb") as f:
            data = f.read()
    (magic,) = struct.unpack(">I", data[:4])
    dims = struct.unpack(">" + "I" * (magic & 0xFF), data[4:4 + 4 * (magic & 0xFF)])
    return np.frombuffer(data[4 + 4 * len(dims):], dtype=np.uint8).reshape(dims)


def make_session(model_bytes, threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])


def images_per_run(batch):
    # The same counts as `digits bench`: at least 2,048 images (two batches of 1,000).
    return max(2 * batch, 2048)


def time_ort(sessions, images, batch, threads, runs):
    session = sessions[threads]
    batches = max(1, images_per_run(batch) // batch)
    count = images.shape[0]
    rates, cpu = [], []
    start_index = 0
    for run in range(runs + 1):
        c0 = time.process_time()
        t0 = time.perf_counter()
        for _ in range(batches):
            if start_index + batch > count:
                start_index = 0
            session.run(None, {"pixels": images[start_index:start_index + batch]})
            start_index += batch
        elapsed = time.perf_counter() - t0
        cpu_seconds = time.process_time() - c0
        if run > 0:
            rates.append(batches * batch / elapsed)
            cpu.append(cpu_seconds * 1e6 / (batches * batch))
    return float(np.median(rates)), float(np.median(cpu))


def run_digits(digits, args, extra):
    cmd = [digits, "bench", "--json", "--weights", args.weights, "--data", args.data, "--runs", str(args.runs)] + extra
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def default_digits(debug_too=False):
    candidates = [os.environ.get("DIGITS"), os.path.join(ROOT, ".build/release/digits")]
    # A debug build computes the same logits (slowly); only the timings need a release build.
    for candidate in candidates + ([os.path.join(ROOT, ".build/debug/digits")] if debug_too else []):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise SystemExit("no digits binary: build one (swift build -c release --product digits) or pass --digits PATH")


def check(digits, args, model_bytes, images):
    """The exported model against digits on the first `args.check` test images; the exit status."""
    count = args.check
    session = make_session(model_bytes, 1)
    ort_logits = np.concatenate([session.run(None, {"pixels": images[i:min(i + 1000, count)]})[0]
                                 for i in range(0, count, 1000)])
    with tempfile.TemporaryDirectory() as tmp:
        logits_path = os.path.join(tmp, "logits.f32")
        subprocess.run([digits, "bench", "--weights", args.weights, "--data", args.data, "--logits", logits_path],
                       check=True, capture_output=True)
        digits_logits = np.fromfile(logits_path, dtype="<f4").reshape(-1, ort_logits.shape[1])[:count]
    max_diff = float(np.abs(ort_logits - digits_logits).max())
    differ = int((ort_logits.argmax(axis=1) != digits_logits.argmax(axis=1)).sum())
    ops = [node.op_type for node in onnx.load_model_from_string(model_bytes).graph.node]
    print(f"digits: {digits}; weights: {args.weights}")
    print(f"export: {len(model_bytes):,} bytes, onnx.checker passed (onnx {onnx.__version__}); "
          f"{len(ops)} nodes: {' '.join(ops)}")
    print(f"ONNX Runtime {ort.__version__} on the first {count:,} MNIST test images: largest |logit difference| "
          f"{max_diff:.2e} (limit 1e-4), top-1 answers that differ: {differ}")
    if max_diff < 1e-4 and differ == 0:
        print("check-onnx-export: OK")
        return 0
    print("check-onnx-export: FAILED", file=sys.stderr)
    return 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--weights", default=os.environ.get("DIGITS_WEIGHTS") or os.path.join(ROOT, "Weights/mnist-cnn.safetensors"))
    parser.add_argument("--digits", help="the digits executable (default $DIGITS, then .build/release/digits)")
    parser.add_argument("--data", help="MNIST folder")
    parser.add_argument("--rounds", type=int, default=5, help="alternations of ONNX Runtime and digits timings (default 5)")
    parser.add_argument("--runs", type=int, default=7, help="timed runs per figure in each round (default 7)")
    parser.add_argument("--markdown", help="also write the tables to this file")
    parser.add_argument("--no-full-bench", action="store_true", help="skip the full `digits bench` at the end")
    parser.add_argument("--check", type=int, metavar="N",
                        help="only check the export against digits on the first N test images (no timings)")
    args = parser.parse_args()
    if args.check is not None and not 1 <= args.check <= 10000:
        parser.error("--check takes 1 to 10000 images")
    digits = args.digits or default_digits(debug_too=args.check is not None)
    args.data = find_mnist(args.data)
    args.weights = os.path.abspath(args.weights)

    with tempfile.TemporaryDirectory() as tmp:
        model_bytes = export_model(digits, args.weights, tmp)
    images = (read_idx(args.data, "t10k-images-idx3-ubyte").astype(np.float32) / 255.0).reshape(-1, 1, 28, 28)
    if args.check is not None:
        sys.exit(check(digits, args, model_bytes, images))
    labels = read_idx(args.data, "t10k-labels-idx1-ubyte").astype(np.int64)
    sessions = {t: make_session(model_bytes, t) for t in sorted({t for _, t in CONFIGS})}

    # Agreement on the whole test set.
    ort_logits = np.concatenate([sessions[1].run(None, {"pixels": images[i:i + 1000]})[0] for i in range(0, len(images), 1000)])
    with tempfile.TemporaryDirectory() as tmp:
        predictions_path, logits_path = os.path.join(tmp, "predictions.tsv"), os.path.join(tmp, "logits.f32")
        subprocess.run([digits, "eval", "--weights", args.weights, "--data", args.data, "--predictions", predictions_path],
                       check=True, capture_output=True)
        subprocess.run([digits, "bench", "--weights", args.weights, "--data", args.data, "--logits", logits_path],
                       check=True, capture_output=True)
        rows = [line.split("\t") for line in open(predictions_path).read().splitlines()[1:]]
        digits_predicted = np.array([int(r[2]) for r in rows])
        digits_logits = np.fromfile(logits_path, dtype="<f4").reshape(-1, ort_logits.shape[1])
    ort_predicted = ort_logits[:, :10].argmax(axis=1)   # the best digit, as digits eval predicts
    agreement = float((ort_predicted == digits_predicted).mean())
    max_logit_diff = float(np.abs(ort_logits - digits_logits).max())
    argmax_from_logits = float((digits_logits[:, :10].argmax(axis=1) == digits_predicted).mean())

    # Timings, alternating so both runtimes see the same load.
    ort_rates = {c: [] for c in CONFIGS}
    digits_rates = {c: [] for c in CONFIGS}
    ort_cpu = {c: [] for c in CONFIGS}
    digits_cpu = {c: [] for c in CONFIGS}
    loads = [os.getloadavg()[0]]
    for r in range(args.rounds):
        print(f"compare: round {r + 1}/{args.rounds}", file=sys.stderr)
        for batch, threads in CONFIGS:
            rate, cpu = time_ort(sessions, images, batch, threads, args.runs)
            ort_rates[(batch, threads)].append(rate)
            ort_cpu[(batch, threads)].append(cpu)
        report = run_digits(digits, args, ["--only", "cnn"])
        for batch, threads in CONFIGS:
            digits_rates[(batch, threads)].append(report[f"cnn_img_per_s_b{batch}_t{threads}"])
            digits_cpu[(batch, threads)].append(report[f"cnn_cpu_us_per_img_b{batch}_t{threads}"])
        loads.append(os.getloadavg()[0])
    full = None if args.no_full_bench else run_digits(digits, args, [])

    lines = []
    lines.append(f"digits: {digits} ({full['build'] if full else report['build']})")
    lines.append(f"CPU: {report['cpu']}; ONNX Runtime {ort.__version__} (CPUExecutionProvider, graph optimizations on)")
    lines.append(f"weights: {args.weights}")
    lines.append("")
    lines.append(f"Agreement on the {len(labels)} MNIST test images: top-1 {agreement * 100:.2f}% "
                 f"({int(round((1 - agreement) * len(labels)))} differ); largest |logit difference| {max_logit_diff:.2e}")
    lines.append(f"Accuracy: digits {(digits_predicted == labels).mean() * 100:.2f}%, "
                 f"ONNX Runtime {(ort_predicted == labels).mean() * 100:.2f}%"
                 + ("" if argmax_from_logits == 1 else f" (digits logits argmax vs eval: {argmax_from_logits * 100:.2f}%)"))
    lines.append("")
    lines.append(f"1-minute load average during the timings: {min(loads):.2f}–{max(loads):.2f} on {os.cpu_count()} CPUs.")
    lines.append("")
    lines.append(f"Images per second (wall clock), median over {args.rounds} rounds (each the median of {args.runs} runs); "
                 "the ratio is the median of the rounds' ratios (each round times both, one after the other):")
    lines.append("")
    def table(header, digits, ort, cell, ratio=None):
        lines.append(header)
        lines.append("| ---: | ---: | ---: | ---: | ---: |" + (" ---: |" if ratio else ""))
        for batch, threads in CONFIGS:
            ds, os_ = digits[(batch, threads)], ort[(batch, threads)]
            d, o = float(np.median(ds)), float(np.median(os_))
            extra = f" {float(np.median([ratio(a, b) for a, b in zip(ds, os_)])):.2f}× |" if ratio else ""
            lines.append(f"| {batch} | {threads} | {cell(d, o)} |" + extra)

    table("| batch | threads | digits img/s | ONNX Runtime img/s | ratio of medians | median of ratios |", digits_rates, ort_rates,
          lambda d, o: f"{d:,.0f} | {o:,.0f} | {d / o:.2f}×", ratio=lambda d, o: d / o)
    lines.append("")
    lines.append("CPU time per image, all threads of each process (not inflated by other processes on the machine):")
    lines.append("")
    table("| batch | threads | digits CPU µs | ONNX Runtime CPU µs | ORT / digits |", digits_cpu, ort_cpu,
          lambda d, o: f"{d:.1f} | {o:.1f} | {o / d:.2f}×")
    if full:
        lines.append("")
        lines.append("`digits bench --json` in the same run:")
        lines.append("")
        lines.append("```json")
        lines.append(json.dumps({k: v for k, v in full.items() if k != "layers"}))
        lines.append("```")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
