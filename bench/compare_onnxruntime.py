"""digits against ONNX Runtime on the identical graph (run through bench/compare-onnxruntime).

1. Reads the weight file (safetensors) and its `layers` metadata and builds the same network as an
   ONNX graph: the pixel normalization, then Conv / BatchNormalization / Relu / MaxPool / Flatten /
   Gemm exactly as listed (ONNX Runtime does its own batch-norm folding and fusions).
2. Runs it on the 10,000 MNIST test images and compares with `digits eval --predictions` (top-1
   agreement) and with the logits of `digits bench --logits` (largest absolute difference).
3. Times ONNX Runtime at the batch sizes and thread counts of `digits bench` (images per second,
   median of runs after a warm-up, same number of images per run), and runs `digits bench` in the
   same process, alternating the two `--rounds` times so that both see the same machine load.
4. Prints a table with the ratios (digits / ONNX Runtime; above 1 means digits is faster).
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
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = [(1, 1), (64, 1), (1000, 1), (1000, 2)]


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    metadata = header.pop("__metadata__", {})
    base = 8 + n
    tensors = {}
    for name, info in header.items():
        if info["dtype"] != "F32":
            raise SystemExit(f"{path}: tensor {name} has dtype {info['dtype']}, expected F32")
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(data[base + start:base + end], dtype="<f4").reshape(info["shape"])
    return tensors, metadata


def build_graph(tensors, metadata):
    """The ONNX model of the `layers` description: input `pixels` (N, 1, 28, 28) in 0..1, output `logits` (N, 10)."""
    layers = json.loads(metadata["layers"])
    mean, std = float(metadata["input_mean"]), float(metadata["input_std"])
    nodes, inits = [], []
    used = set()

    def init(name):
        if name not in used:
            used.add(name)
            inits.append(numpy_helper.from_array(np.ascontiguousarray(tensors[name]), name))
        return name

    inits.append(numpy_helper.from_array(np.array(mean, dtype=np.float32), "input_mean"))
    inits.append(numpy_helper.from_array(np.array(std, dtype=np.float32), "input_std"))
    nodes.append(helper.make_node("Sub", ["pixels", "input_mean"], ["centered"]))
    nodes.append(helper.make_node("Div", ["centered", "input_std"], ["x0"]))
    cur = "x0"
    for i, layer in enumerate(layers):
        out = f"x{i + 1}"
        kind = layer["type"]
        if kind == "conv2d":
            w = tensors[layer["weight"]]
            inputs = [cur, init(layer["weight"])] + ([init(layer["bias"])] if "bias" in layer else [])
            p, s = layer.get("padding", 0), layer.get("stride", 1)
            nodes.append(helper.make_node("Conv", inputs, [out], kernel_shape=list(w.shape[2:]),
                                          pads=[p, p, p, p], strides=[s, s]))
        elif kind == "batchnorm2d":
            nodes.append(helper.make_node(
                "BatchNormalization",
                [cur, init(layer["weight"]), init(layer["bias"]), init(layer["running_mean"]), init(layer["running_var"])],
                [out], epsilon=float(layer.get("eps", 1e-5))))
        elif kind == "relu":
            nodes.append(helper.make_node("Relu", [cur], [out]))
        elif kind in ("maxpool2d", "avgpool2d"):
            k = layer["kernel"]
            s = layer.get("stride", k)
            op = "MaxPool" if kind == "maxpool2d" else "AveragePool"
            nodes.append(helper.make_node(op, [cur], [out], kernel_shape=[k, k], strides=[s, s]))
        elif kind == "global_avgpool":
            nodes.append(helper.make_node("GlobalAveragePool", [cur], [out]))
        elif kind == "flatten":
            nodes.append(helper.make_node("Flatten", [cur], [out], axis=1))
        elif kind == "linear":
            inputs = [cur, init(layer["weight"])] + ([init(layer["bias"])] if "bias" in layer else [])
            nodes.append(helper.make_node("Gemm", inputs, [out], transB=1))
        else:
            raise SystemExit(f"layers[{i}]: unsupported layer type {kind!r}")
        cur = out
    nodes.append(helper.make_node("Identity", [cur], ["logits"]))
    graph = helper.make_graph(
        nodes, "digits-cnn",
        [helper.make_tensor_value_info("pixels", TensorProto.FLOAT, ["N", 1, 28, 28])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="digits")
    model.ir_version = 8  # ONNX 1.13 level: readable by every ONNX Runtime that runs opset 17
    onnx.checker.check_model(model)
    return model


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


def default_digits():
    for candidate in (os.environ.get("DIGITS"), os.path.join(ROOT, ".build-native/release/digits"),
                      os.path.join(ROOT, ".build/release/digits")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise SystemExit("no digits binary: build one (DIGITS_CPU=native swift build -c release --scratch-path .build-native) "
                     "or pass --digits PATH")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--weights", default=os.environ.get("DIGITS_WEIGHTS") or os.path.join(ROOT, "Weights/mnist-cnn.safetensors"))
    parser.add_argument("--digits", help="the digits executable (default .build-native/release/digits, then .build/release/digits)")
    parser.add_argument("--data", help="MNIST folder")
    parser.add_argument("--rounds", type=int, default=3, help="alternations of ONNX Runtime and digits timings (default 3)")
    parser.add_argument("--runs", type=int, default=7, help="timed runs per figure in each round (default 7)")
    parser.add_argument("--markdown", help="also write the tables to this file")
    parser.add_argument("--no-full-bench", action="store_true", help="skip the full `digits bench` at the end")
    args = parser.parse_args()
    digits = args.digits or default_digits()
    args.data = find_mnist(args.data)
    args.weights = os.path.abspath(args.weights)

    tensors, metadata = read_safetensors(args.weights)
    model = build_graph(tensors, metadata)
    model_bytes = model.SerializeToString()
    images = (read_idx(args.data, "t10k-images-idx3-ubyte").astype(np.float32) / 255.0).reshape(-1, 1, 28, 28)
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
        digits_logits = np.fromfile(logits_path, dtype="<f4").reshape(-1, 10)
    ort_predicted = ort_logits.argmax(axis=1)
    agreement = float((ort_predicted == digits_predicted).mean())
    max_logit_diff = float(np.abs(ort_logits - digits_logits).max())
    argmax_from_logits = float((digits_logits.argmax(axis=1) == digits_predicted).mean())

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
    lines.append(f"Images per second (wall clock), median over {args.rounds} rounds (each the median of {args.runs} runs):")
    lines.append("")
    def table(header, digits, ort, cell):
        lines.append(header)
        lines.append("| ---: | ---: | ---: | ---: | ---: |")
        for batch, threads in CONFIGS:
            d, o = float(np.median(digits[(batch, threads)])), float(np.median(ort[(batch, threads)]))
            lines.append(f"| {batch} | {threads} | {cell(d, o)} |")

    table("| batch | threads | digits img/s | ONNX Runtime img/s | digits / ORT |", digits_rates, ort_rates,
          lambda d, o: f"{d:,.0f} | {o:,.0f} | {d / o:.2f}×")
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
