/* kernel-bench's read rows: the floor a reading kernel can reach,
 * measured as the other rows are, and an empty launch's cost.  A plain
 * kernel reads the frame once in 16-byte vectors, four a thread in
 * flight, one wave of blocks, and adds it up (one atomic a warp, so that
 * nothing is optimised away).  The "floor" column is bytes over the copy
 * bandwidth; this row adds what any launch costs (its start, its wave's
 * tail), so an analysis kernel's ratio to it says how much of the gap to
 * the floor is its own work. */
#include "harness.cuh"

namespace {

/* vectors a thread has in flight */
constexpr int kReadVectors = 4;

__global__ void
read_kernel (const uint4 * data, size_t n, unsigned int *sum)
{
  const size_t stride = (size_t) gridDim.x * blockDim.x;
  uint32_t acc = 0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
      i += kReadVectors * stride) {
    uint4 v[kReadVectors];
#pragma unroll
    for (int u = 0; u < kReadVectors; u++)
      v[u] = i + u * stride < n ? data[i + u * stride] : make_uint4 (0, 0, 0,
          0);
#pragma unroll
    for (int u = 0; u < kReadVectors; u++)
      acc += v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (int d = 16; d > 0; d /= 2)
    acc += __shfl_down_sync (0xffffffffu, acc, d);
  if ((threadIdx.x & 31) == 0)
    atomicAdd (sum, acc);
}

__global__ void
empty_kernel (void)
{
}

/* The fixed cost of a launch, timed as every row is: a wave of blocks of
 * the read's shape that do nothing.  It and the floor column of a row
 * make #47's launch-inclusive floor; its copy column is a 1-byte copy. */
Row
bench_empty (void)
{
  Row row = make_row ("empty", "no work", kRGBA, 0, 0, false, 0);
  row.note = "a wave of empty blocks";
  int sms;
  CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  Launch launch =[&](int) {
    empty_kernel <<< 2 * sms, 1024 >>> ();
    return (int) cudaGetLastError ();
  };
  time_row (row, launch, false);
  return row;
}

/* A frame of @fmt read whole, rows and padding alike, as one run. */
Row
bench_read (int w, int h, const Format & fmt)
{
  size_t bytes = frame_bytes (fmt, w, h);
  Row row = make_row ("read", "plain read", fmt, w, h, false, (double) bytes);
  row.note = "16-byte loads, 4 in flight, one wave";
  Frames in (rotation_count (bytes), fmt, w, h, true);
  in.fill (false);
  DeviceArray < unsigned int >sum (1);
  int sms;
  CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  Launch launch =[&](int i) {
    read_kernel <<< 2 * sms, 1024 >>> ((const uint4 *) in[i], bytes / 16,
        sum.ptr);
    return (int) cudaGetLastError ();
  };
  time_row (row, launch, false);
  return row;
}

}                               /* namespace */

/* RGBA, NV12 and P010 at 4K and 1080p, and the empty launch */
void
add_read_cases (Cases & cases)
{
  add_case (cases, "empty kernel",[] {
        return bench_empty ();
      });
  for (const Format * fmt: {&kRGBA, &kNV12, &kP010})
    for (const Size * s: {&k4K, &kSizes[1]})
      add_case (cases, case_name ("read", *fmt, *s, "", false),[=] {
            return bench_read (s->w, s->h, *fmt);
          });
}
