#!/usr/bin/env python3
"""doc_listings.py: the side-by-side CUDA / OpenCL listings of docs/memory-spaces.md, cut from the kernel (and host) files.

  doc_listings.py            rewrite every `<!-- listing: NAME -->` block of docs/memory-spaces.md
  doc_listings.py --check    exit 1, naming the block, when one differs from what the files give now

Each listing is anchored on distinctive lines of its files, never on line numbers: an anchor is a piece of text
that must be on exactly one line of the file (a range runs from its unique first line to the first line after it
that holds the closing text). An anchor that matches no line, or several, stops the script with the file and the
anchor, so an edit of a kernel either leaves the listing true or fails loudly (tests/docs/test_docs_lesson.py).
Standard library only.
"""
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "memory-spaces.md"


class DriftError(Exception):
    """An anchor no longer names exactly one line of its file."""


def Range(first, last):
    """The lines from the one holding `first` (unique) to the first line at or after it holding `last`."""
    return (first, last)


class Line(str):
    """An anchor that must be the whole line (stripped), for a line whose text is also part of longer ones."""


# name -> (CUDA side, OpenCL side); a side is a list of (file, [anchor or Range]) or a sentence where the API has
# no counterpart. The files are the kernels', and for host memory and several GPUs the backends' host code.
LISTINGS = {
    "global": (
        [("kernels_cuda/global.cu", [Range("__global__ void convolve_global(", "const ConvArgs args)"),
                                     Range("const int x = blockIdx.x * blockDim.x + threadIdx.x;",
                                           "cc_store(output, y * args.pitch + x, sum);")])],
        [("kernels_cl/global.cl", [Range("__kernel void convolve_global(", "const ConvArgs args)"),
                                   Range("const int x = get_global_id(0);",
                                         "cc_store(output, y * args.pitch + x, sum);")])]),
    "constant": (
        [("kernels_cuda/filter_in_constant.cuh", ["__constant__ float c_filter[cc::cuda_kernels::kMaxConstantTaps];"]),
         ("kernels_cuda/constant.cu", ["sum += pixel * c_filter[fy * args.filter_width + fx];"])],
        [("kernels_cl/constant.cl", ["__constant float* filter,",
                                     "sum += pixel * filter[fy * args.filter_width + fx];"])]),
    "tiled": (
        [("kernels_cuda/tiled.cu", ["extern __shared__ cc_pixel tile[];",
                                    Range("for (int i = ly * blockDim.x + lx; i < tile_width * tile_height;",
                                          "__syncthreads();"),
                                    "sum += cc_load(tile, (ly + fy) * tile_width + lx + fx)"])],
        [("kernels_cl/tiled.cl", ["__local cc_pixel* tile)",
                                  Range("for (int i = ly * get_local_size(0) + lx; i < tile_width * tile_height;",
                                        "barrier(CLK_LOCAL_MEM_FENCE);"),
                                  "sum += cc_load(tile, (ly + fy) * tile_width + lx + fx)"])]),
    "texture": (
        [("kernels_cuda/texture.cu", ["__global__ void convolve_texture(cudaTextureObject_t input,",
                                      "sum += cc_texel(input, sx + 0.5f, sy + 0.5f)"]),
         ("common/geometry/pixel.h", ["#define cc_texel(texture, x, y) tex2D<cc_value>(texture, x, y)"])],
        [("kernels_cl/texture.cl", ["__kernel void convolve_texture(__read_only image2d_t input,",
                                    "sampler_t sampler,",
                                    "sum += cc_texel(input, sampler, (int2)(sx, sy))"]),
         ("common/geometry/pixel.h", [Line("#define cc_texel(image, sampler, coord) read_imagef(image, sampler, coord)")])]),
    # The shuffle kernels' loops are being reworked: only the shuffle calls and the OpenCL macro are anchored.
    "shuffle": (
        [("kernels_cuda/shuffle.cu", ["__shfl_sync(members, held, from)"])],
        [("kernels_cl/shuffle.cl", ["#define cc_lane_shuffle(word, lane) intel_sub_group_shuffle(word, lane)",
                                    "#define cc_lane_shuffle(word, lane) sub_group_shuffle(word, lane)",
                                    "cc_lane_shuffle(held, (uint)from)"])]),
    "tensor": (
        [("kernels_cuda/tensor.cu", [Range('asm("mma.sync.aligned.m16n8k8', '"r"(b[0]), "r"(b[1]));'),
                                     "split_tf32(rows[8 * c], &a_high[0], &a_low[0]);",
                                     "mma_tf32(row_sum[s], term == 0 ? a_low : a_high, term == 1 ? b_low[j] : b_high[j]);"])],
        [("kernels_cl/tensor.cl", [Range('asm("mma.sync.aligned.m16n8k8', '"r"(b[0]), "r"(b[1]));'),
                                   "split_tf32(rows[8 * c], &a_high[0], &a_low[0]);",
                                   "mma_tf32(row_sum[s], term == 0 ? a_low : a_high, term == 1 ? b_low[j] : b_high[j]);"])]),
    "async": (
        [("kernels_cuda/async.cu", ["__pipeline_memcpy_async(tile_cell, image_cell, sizeof(cc_pixel));",
                                    "__pipeline_commit();", "__pipeline_wait_prior(0);", "__syncthreads();"])],
        [("kernels_cl/async.cl", [Range("copied = async_work_group_copy(", "(size_t)copy_width, copied);"),
                                  "wait_group_events(1, &copied);", "barrier(CLK_LOCAL_MEM_FENCE);"])]),
    "tma": (
        [("kernels_cuda/tma.cu", ["const __grid_constant__ CUtensorMap input_map,",
                                  "cuda::ptx::mbarrier_init(tile_landed, 1);",
                                  Range("cuda::ptx::cp_async_bulk_tensor(", "tile_landed);"),
                                  "while (!cuda::ptx::mbarrier_try_wait_parity(tile_landed, 0))"])],
        "No counterpart: OpenCL has no tensor copy unit. The nearest is async_work_group_copy (the listing above)."),
    "cluster": (
        [("kernels_cuda/cluster.cu", ["const cg::cluster_group cluster = cg::this_cluster();",
                                      Range("tile[own + ly * tile_width + lx] = extended_pixel(", "cluster.sync();"),
                                      "const cc_pixel* holder_tile = cluster.map_shared_rank(",
                                      "tile[i] = holder_tile[own + (cy - holder_y * block_height)",
                                      Range("barrier is also the block's own before it convolves", "cluster.sync();")])],
        "No counterpart: a work-group's __local memory is its own, and OpenCL C has no clusters."),
    "host": (
        [("backends/cuda/cuda_resources.cpp", ["cudaMallocHost(&data, bytes);",
                                               "cudaHostAlloc(&data, bytes, cudaHostAllocMapped);",
                                               "cudaHostGetDevicePointer(&device, data, 0)",
                                               "cudaMallocManaged(&data, bytes, cudaMemAttachGlobal);",
                                               "cudaMemPrefetchAsync(data, bytes, ordinal, stream)"])],
        [("backends/opencl/cl_api.cpp", ["cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes",
                                         "queue_.enqueueMapBuffer(buffer_, CL_TRUE"]),
         ("backends/opencl/cl_svm.cpp", [Range("data_(clSVMAlloc(context(), CL_MEM_READ_WRITE",
                                               "CL_MEM_SVM_FINE_GRAIN_BUFFER : 0)"),
                                         "clSetKernelArgSVMPointer(kernel(), index, data)"])]),
    "gpus": (
        [("backends/cuda/cuda_peer.cpp", ["cudaMemcpyPeerAsync(to, to_device, from, from_device, bytes"])],
        [("backends/opencl/cl_frame.h", ["return queue.get().enqueueWriteBuffer(buffer(unit), CL_FALSE, offset"]),
         ("backends/opencl/cl_frame.cpp", ["return from_queue.enqueueReadBuffer(source.input->buffer(unit)"])]),
}


def _matching(lines, text, path):
    whole = isinstance(text, Line)
    hits = [i for i, line in enumerate(lines) if (line.strip() == text if whole else text in line)]
    if len(hits) != 1:
        raise DriftError(f"{path}: the anchor {text.strip()!r} is on {len(hits)} lines, not one: "
                         "the listing has drifted from the code; fix the anchor in tools/doc_listings.py")
    return hits[0]


def cut(path, anchors):
    """The lines of `path` the anchors name, in file order, with `...` where lines are left out; dedented."""
    lines = (REPO / path).read_text().splitlines()
    chosen = set()
    for anchor in anchors:
        if isinstance(anchor, tuple):
            first = _matching(lines, anchor[0], path)
            last = next((i for i in range(first, len(lines)) if anchor[1] in lines[i]), None)
            if last is None:
                raise DriftError(f"{path}: no line after {anchor[0]!r} holds {anchor[1]!r}: the listing has drifted")
            chosen.update(range(first, last + 1))
        else:
            chosen.add(_matching(lines, anchor, path))
    runs = []  # consecutive lines together, each run dedented on its own
    for i in sorted(chosen):
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    out = []
    for k, run in enumerate(runs):
        if k:
            out.append("...")
        indent = min(len(lines[i]) - len(lines[i].lstrip()) for i in run if lines[i].strip())
        out.extend(lines[i][indent:].rstrip() for i in run)
    return out


def side_text(side):
    """One column's text: each file's lines under a `// file` line, or the sentence of an API with no twin."""
    if isinstance(side, str):
        return None, side
    parts = []
    for path, anchors in side:
        parts.append(f"// {path}")
        parts.extend(cut(path, anchors))
    return "\n".join(parts), None


def render(name):
    """The HTML table the page holds between `<!-- listing: NAME -->` and `<!-- end listing -->`. Each cell holds a
    fenced code block between blank lines, so that Markdown keeps the code's own blank lines and `<` as they are."""
    cells = []
    for language, side in zip(("cuda", "c"), LISTINGS[name]):
        code, sentence = side_text(side)
        cells.append(f"```{language}\n{code}\n```" if code else f"*{sentence}*")
    return ("<table>\n<tr><th>CUDA</th><th>OpenCL</th></tr>\n<tr valign=\"top\"><td>\n\n" + cells[0] +
            "\n\n</td><td>\n\n" + cells[1] + "\n\n</td></tr>\n</table>\n")


def blocks(text):
    """(name, body) of every listing block of the page text."""
    out = []
    for piece in text.split("<!-- listing: ")[1:]:
        name, rest = piece.split(" -->\n", 1)
        out.append((name, rest.split("<!-- end listing -->", 1)[0]))
    return out


def rewrite(text):
    """The page text with every listing block regenerated."""
    head, *pieces = text.split("<!-- listing: ")
    out = [head]
    for piece in pieces:
        name, rest = piece.split(" -->\n", 1)
        tail = rest.split("<!-- end listing -->", 1)[1]
        out.append(f"<!-- listing: {name} -->\n{render(name)}<!-- end listing -->{tail}")
    return "".join(out)


def stale(text):
    """Names of the page's listing blocks that differ from the files now (a DriftError propagates)."""
    return [name for name, body in blocks(text) if body != render(name)]


def main(argv):
    text = PAGE.read_text()
    try:
        if "--check" in argv:
            names = stale(text)
            missing = sorted(set(LISTINGS) - {name for name, _ in blocks(text)})
            for name in names:
                print(f"doc_listings.py: the listing '{name}' in {PAGE.relative_to(REPO)} differs from its files: "
                      "run python3 tools/doc_listings.py", file=sys.stderr)
            for name in missing:
                print(f"doc_listings.py: no '<!-- listing: {name} -->' block in the page", file=sys.stderr)
            return 1 if names or missing else 0
        PAGE.write_text(rewrite(text))
        print(f"doc_listings.py: {len(blocks(text))} listings written in {PAGE.relative_to(REPO)}")
        return 0
    except DriftError as error:
        print(f"doc_listings.py: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
