"""Add a labeller's figures to a committed label set, in resumable chunk files.

    python scripts/labels/relabel_set.py nets/runs/sage-labels/h21.npz --labeller bgsage@2 \
        --key sage2 --chunks runs/h21-sage2

Each chunk of ``--chunk`` positions is labelled and written atomically to
``CHUNKS/chunk-NNNNN.npz`` (a rerun skips the chunks already there, so a killed run goes
on where it stopped, and a second run with ``--first-chunk K`` can take the chunks from
K on, on another core); when every chunk is there, the labels are added to the set under
``--key`` (float16), the set's ``sources`` saying by whom.  ``--partial OUT`` labels
nothing and writes the positions labelled so far as a set of their own, so that a fit
can learn from a long labelling's first chunks.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from nets.train.labellers import parse_labeller


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("set", help="a label set (.npz with boards)")
    p.add_argument("--labeller", required=True, help="labeller spec, e.g. bgsage@2")
    p.add_argument("--key", required=True, help="name of the new label array, e.g. sage2")
    p.add_argument("--chunks", required=True, help="directory of the chunk files")
    p.add_argument("--chunk", type=int, default=10000, help="positions a chunk (default 10000)")
    p.add_argument("--limit-chunks", type=int, help="stop after this many new chunks")
    p.add_argument(
        "--first-chunk",
        type=int,
        default=0,
        help="begin at this chunk (a second run on another core can take the chunks from here on)",
    )
    p.add_argument(
        "--partial",
        type=Path,
        help="label nothing: write the positions labelled so far (the chunks present from the first on) "
        "with their labels under --key, as a label set of their own",
    )
    args = p.parse_args(argv)
    with np.load(args.set) as data:
        boards = data["boards"]
    folder = Path(args.chunks)
    if args.partial is not None:
        return write_partial(args, boards, folder)
    labeller = parse_labeller(args.labeller)
    labeller.require()
    folder.mkdir(parents=True, exist_ok=True)
    count = (len(boards) + args.chunk - 1) // args.chunk
    done_now = 0
    for k in range(args.first_chunk, count):
        path = folder / f"chunk-{k:05d}.npz"
        if path.exists():
            continue
        if args.limit_chunks is not None and done_now >= args.limit_chunks:
            break
        start = time.perf_counter()
        labels = labeller.label(boards[k * args.chunk : (k + 1) * args.chunk])
        save_atomically(path, labels=labels.astype(np.float16), first=k * args.chunk)
        done_now += 1
        print(f"chunk {k + 1}/{count}: {len(labels)} positions in {time.perf_counter() - start:.0f} s", flush=True)
    present = sorted(folder.glob("chunk-*[0-9].npz"))
    if len(present) < count:
        print(f"{len(present)} of {count} chunks labelled; run again to go on")
        return 0
    labels = np.concatenate(labelled_prefix(folder, args.chunk))
    with np.load(args.set) as data:
        arrays = {k: data[k] for k in data.files}
    arrays[args.key] = labels
    arrays["sources"] = np.append(
        arrays.get("sources", np.array([], str)),
        f"{args.key}: labelled by {args.labeller} (scripts/labels/relabel_set.py)",
    )
    save_atomically(Path(args.set), **arrays)
    print(f"{len(labels)} labels by {args.labeller} added to {args.set} as {args.key}")
    return 0


def write_partial(args: argparse.Namespace, boards: np.ndarray, folder: Path) -> int:
    """The prefix of the set whose chunks are all there, as a set of its own (a fit can
    learn from the labels of a long labelling before it ends)."""
    labels = labelled_prefix(folder, args.chunk)
    if not labels:
        raise SystemExit(f"no chunk-00000.npz in {folder}")
    count = sum(len(part) for part in labels)
    with np.load(args.set) as data:
        arrays = {name: data[name][:count] for name in data.files if name != "sources"}
        sources = [str(s) for s in data["sources"]] if "sources" in data.files else []
    arrays[args.key] = np.concatenate(labels)
    labelled_by = f"{args.key}: labelled by {args.labeller} (scripts/labels/relabel_set.py)"
    arrays["sources"] = np.array([*sources, f"the first {count} positions of {args.set}", labelled_by])
    args.partial.parent.mkdir(parents=True, exist_ok=True)
    save_atomically(args.partial, **arrays)
    print(f"{count} positions labelled by {args.labeller} written to {args.partial} as {args.key}")
    return 0


def labelled_prefix(folder: Path, chunk: int) -> list[np.ndarray]:
    """The labels of the chunks present from the first on, up to the first gap; a chunk
    written with another ``--chunk`` is an error."""
    labels = []
    k = 0
    while (path := folder / f"chunk-{k:05d}.npz").exists():
        with np.load(path) as data:
            first = int(data["first"])
            if first != k * chunk:
                raise SystemExit(f"{path} starts at position {first}, not {k * chunk}: wrong --chunk")
            labels.append(data["labels"])
        k += 1
    return labels


def save_atomically(path: Path, **arrays) -> None:
    """``path`` written whole or not at all, through a temporary file of this process's
    own: two runs (``--first-chunk``) may label the same chunk, or both add the labels
    to the set, at once, and write the same figures."""
    tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
