/*===- fake_cuda.c - a recording stand-in for libcuda.so.1 ------------------===
 *
 * Part of tilelang's tests. Implements the driver entry points that
 * lib/Runtime resolves, without a GPU: "linking" keeps the PTX as the image,
 * loading a module reads each .entry's parameter sizes from that PTX, and
 * cuLaunchKernel records the grid, block, shared bytes, stream and the bytes
 * of every parameter instead of running anything. Tests load it through
 * TILELANG_LIBCUDA and read the records with ctypes (fakeCuda* below), so
 * the launcher's packing, keys and error paths are checked in CI.
 *
 * cuTensorMapEncodeTiled writes a readable record into the 128-byte map (see
 * FakeTensorMap) instead of the hardware's encoding.
 *
 * Registers: FAKE_CUDA_REGISTERS is "P" or "P,M" (32 by default): a kernel
 * takes P registers when it may and can be squeezed to M (= P) without
 * spilling. One whose PTX asks for .minnctapersm B with .maxntid T gets a
 * budget of 65536 / (B * T) (a multiple of 8, at most 255): it takes
 * min(P, budget) registers and spills 4 bytes of local memory for every
 * register the budget falls short of M. So the runtime's occupancy search
 * can be followed without ptxas. An image that fake_ptxas (beside this file)
 * wrote starts with "// fake-registers: P[,M]", which replaces
 * FAKE_CUDA_REGISTERS for its functions (a whole-program compile may take
 * other registers than the driver's linker).
 *
 * Environment: FAKE_CUDA_CAPABILITY ("9.0" by default), FAKE_CUDA_SHARED_OPTIN
 * (bytes, 232448 by default), FAKE_CUDA_LAUNCH_ERROR (a CUresult that every
 * launch returns), FAKE_CUDA_REGISTERS, FAKE_CUDA_SHARED_PER_SM (bytes,
 * 233472 by default), FAKE_CUDA_LINK_FAIL_AT (a count of blocks per SM whose
 * PTX fails to link), FAKE_CUDA_FAULT_AT (N: the Nth launch "faults").
 *
 * Several devices: FAKE_CUDA_DEVICES=N (1 by default) pretends to have N
 * identical devices (but for their names, FAKE_CUDA_NAMES), each with its
 * own primary context. The current context
 * is per thread, with a stack (cuCtxPushCurrent/PopCurrent), as the
 * driver's; a module belongs to the context it was loaded in, and launching
 * one of its functions while another context is current fails
 * (CUDA_ERROR_INVALID_CONTEXT), as linking or loading without a context
 * does. Memory is tagged: an address 0x7F0D_xxxx_xxxx (bits 40-47 0x7F)
 * lives on device D (bits 32-35), which cuPointerGetAttribute reports; with
 * more than one device, a launch passing an 8-byte parameter tagged for
 * another device than its context's is refused as a fault would show
 * (CUDA_ERROR_ILLEGAL_ADDRESS) and counted (fakeCudaWrongDeviceCount).
 * Every entry point is thread-safe (one lock), so launches from several
 * threads can be counted per device.
 *
 * A fault is modelled as a GPU reports one: the launch itself succeeds (it
 * is asynchronous), and the context is lost from then on: every later call
 * that uses it (linking, loading, functions, launches) returns
 * CUDA_ERROR_ILLEGAL_ADDRESS, a sticky error.
 *
 *===----------------------------------------------------------------------===*/

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;

enum {
  kMaxParams = 256,
  kMaxParamBytes = 8192,
  kMaxFunctions = 256,
  kMaxDevices = 16,
  kMaxContextDepth = 16
};

enum {
  kInvalidContext = 201, /* CUDA_ERROR_INVALID_CONTEXT */
  kInvalidDevice = 101   /* CUDA_ERROR_INVALID_DEVICE */
};

/* A device's primary context. */
typedef struct {
  int device;
} FakeContext;

static FakeContext contexts[kMaxDevices];
/* The calling thread's context stack; the top is current. */
static __thread FakeContext *contextStack[kMaxContextDepth];
static __thread int contextDepth;
/* One lock over the tables and counters below. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long long launchesOn[kMaxDevices], moduleLoadsOn[kMaxDevices];
static long long wrongDeviceCount;
static int lastLinkDevice = -1;

static FakeContext *current(void) {
  return contextDepth > 0 ? contextStack[contextDepth - 1] : NULL;
}

/* FAKE_CUDA_DEVICES, read once. */
static int deviceCount(void) {
  static int count = -1;
  if (count < 0) {
    const char *value = getenv("FAKE_CUDA_DEVICES");
    int parsed = value && *value ? atoi(value) : 1;
    count = parsed < 1 ? 1 : parsed > kMaxDevices ? kMaxDevices : parsed;
  }
  return count;
}

/* The device an address is tagged for, or -1 for an untagged one. */
static int taggedDevice(uint64_t address) {
  if (((address >> 40) & 0xFF) != 0x7F)
    return -1;
  int device = (int)((address >> 32) & 0xF);
  return device < deviceCount() ? device : -1;
}

typedef struct {
  char name[256];
  int count;
  int sizes[kMaxParams];
  uintptr_t module;     /* the handle cuModuleLoadData gave */
  int device;           /* of the context the module was loaded in */
  int minBlocksPerSM;   /* .minnctapersm, 0 when absent */
  int threadsPerBlock;  /* the product of .maxntid, 0 when absent */
  char registers[32];   /* "P[,M]" of the image's fake-registers line, or "" */
} FakeFunction;

typedef struct {
  unsigned grid[3], block[3], sharedBytes;
  uint64_t stream;
  int device;
  const FakeFunction *function;
  unsigned char bytes[kMaxParamBytes];
  int used;
} LaunchRecord;

/* What cuTensorMapEncodeTiled leaves in a map (fits in 128 bytes). */
typedef struct {
  char magic[4]; /* "FKTM" */
  uint32_t dataType, rank, swizzle;
  uint64_t address;
  uint64_t dims[5];
  uint64_t strides[4];
  uint32_t box[5];
  uint32_t l2Promotion, oobFill;
} FakeTensorMap;
_Static_assert(sizeof(FakeTensorMap) <= 128, "a tensor map is 128 bytes");

static FakeFunction functions[kMaxFunctions];
static int functionCount;
static LaunchRecord last;
/* The last kHistory launches, the Nth (from 1) at history[(N - 1) % kHistory]. */
enum { kHistory = 8 };
static LaunchRecord history[kHistory];
static long long launchCount, encodeCount, linkCount;
static uintptr_t moduleCount;
/* One link's state (cuLinkCreate to cuLinkDestroy). */
typedef struct {
  char *image;
  size_t size;
} LinkState;
static int contextLost; /* set by a faulting launch: see FAKE_CUDA_FAULT_AT */

/* The error every call on a lost context returns. */
#define RETURN_IF_CONTEXT_LOST()                                               \
  do {                                                                         \
    if (contextLost)                                                           \
      return 700; /* CUDA_ERROR_ILLEGAL_ADDRESS */                             \
  } while (0)

static const char *envOr(const char *name, const char *fallback) {
  const char *value = getenv(name);
  return value && *value ? value : fallback;
}

/* Size in bytes of a PTX parameter declaration such as ".param .u32 x" or
 * ".param .align 64 .b8 x[128]". */
static int paramSize(const char *decl, const char *end) {
  int size = 0;
  static const struct {
    const char *type;
    int bytes;
  } types[] = {{".u64", 8}, {".s64", 8}, {".b64", 8}, {".f64", 8},
               {".u32", 4}, {".s32", 4}, {".b32", 4}, {".f32", 4},
               {".u16", 2}, {".s16", 2}, {".b16", 2}, {".f16", 2},
               {".u8", 1},  {".s8", 1},  {".b8", 1}};
  for (const char *p = decl + 6; p < end && !size; ++p)
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); ++t) {
      size_t length = strlen(types[t].type);
      if (p + length <= end && strncmp(p, types[t].type, length) == 0 &&
          (p[length] == ' ' || p[length] == '\t')) {
        size = types[t].bytes;
        break;
      }
    }
  const char *bracket = memchr(decl, '[', (size_t)(end - decl));
  if (bracket)
    size *= atoi(bracket + 1);
  return size;
}

/* The integers after `directive` between `from` and `to` (0 when absent),
 * multiplied: ".maxntid 256, 1, 1" gives 256. */
static int directiveProduct(const char *from, const char *to,
                            const char *directive) {
  const char *at = strstr(from, directive);
  if (!at || at > to)
    return 0;
  int product = 1;
  char *end = (char *)at + strlen(directive);
  while (1) {
    while (*end == ' ' || *end == ',')
      ++end;
    if (*end < '0' || *end > '9')
      return product;
    product *= (int)strtol(end, &end, 10);
  }
}

/* A free slot of the function table (one an unloaded module left, or a new
 * one), or NULL when it is full. Slots never move: a CUfunction is the
 * address of its slot. */
static FakeFunction *freeSlot(void) {
  for (int i = 0; i < functionCount; ++i)
    if (functions[i].module == 0)
      return &functions[i];
  return functionCount < kMaxFunctions ? &functions[functionCount++] : NULL;
}

/* Frees the slots of `module`'s functions. */
static void freeModule(uintptr_t module) {
  for (int i = 0; i < functionCount; ++i)
    if (functions[i].module == module)
      memset(&functions[i], 0, sizeof(functions[i]));
}

/* Records every .entry of `ptx` with its parameter sizes; 0, or -1 when a
 * parameter's size cannot be read or the table is full (a test must not go
 * on with a kernel whose parameters it would copy wrongly). */
static int readEntries(const char *ptx, uintptr_t module) {
  const char *marker = "// fake-registers: ";
  const char *registers = strncmp(ptx, marker, strlen(marker)) == 0
                              ? ptx + strlen(marker)
                              : NULL;
  for (const char *p = strstr(ptx, ".entry "); p; p = strstr(p + 1, ".entry ")) {
    FakeFunction *function = freeSlot();
    if (!function)
      return -1;
    memset(function, 0, sizeof(*function));
    function->module = module;
    if (registers) {
      size_t length = strcspn(registers, "\n");
      if (length >= sizeof(function->registers))
        length = sizeof(function->registers) - 1;
      memcpy(function->registers, registers, length);
    }
    const char *name = p + 7;
    while (*name == ' ')
      ++name;
    size_t length = strcspn(name, "( \n");
    if (length >= sizeof(function->name))
      length = sizeof(function->name) - 1;
    memcpy(function->name, name, length);
    const char *close = strchr(name, ')');
    if (!close)
      return -1;
    for (const char *decl = strstr(name, ".param "); decl && decl < close;
         decl = strstr(decl + 1, ".param ")) {
      const char *end = decl + strcspn(decl, ",)\n");
      int size = paramSize(decl, end);
      if (size <= 0 || function->count == kMaxParams)
        return -1;
      function->sizes[function->count++] = size;
    }
    /* The performance directives sit between the parameters and the body. */
    const char *body = strchr(close, '{');
    if (!body)
      return -1;
    function->minBlocksPerSM = directiveProduct(close, body, ".minnctapersm");
    function->threadsPerBlock = directiveProduct(close, body, ".maxntid");
  }
  return 0;
}

/*===------------------------------------------------------------------===*
 * Driver entry points
 *===------------------------------------------------------------------===*/

CUresult cuInit(unsigned flags) {
  (void)flags;
  return 0;
}

CUresult cuDriverGetVersion(int *version) {
  *version = 13000;
  return 0;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case 1:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return 0;
  case 700:
    *name = "CUDA_ERROR_ILLEGAL_ADDRESS";
    return 0;
  case 701:
    *name = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
    return 0;
  case 218:
    *name = "CUDA_ERROR_INVALID_PTX";
    return 0;
  case kInvalidDevice:
    *name = "CUDA_ERROR_INVALID_DEVICE";
    return 0;
  case kInvalidContext:
    *name = "CUDA_ERROR_INVALID_CONTEXT";
    return 0;
  default:
    *name = NULL;
    return 1;
  }
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == 700 ? "an illegal memory access was encountered"
                       : "fake driver error";
  return 0;
}

CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return ordinal >= 0 && ordinal < deviceCount() ? 0 : kInvalidDevice;
}

CUresult cuDeviceGetCount(int *count) {
  *count = deviceCount();
  return 0;
}

CUresult cuPointerGetAttribute(void *data, int attribute, uint64_t pointer) {
  int device = taggedDevice(pointer);
  if (attribute != 9 /* CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL */ || device < 0)
    return 1; /* CUDA_ERROR_INVALID_VALUE: not device memory */
  *(int *)data = device;
  return 0;
}

/* FAKE_CUDA_NAMES: the devices' names, comma-separated, in device order
 * (devices past the list, or without it, are "Fake CUDA device"): devices
 * of several models in one process. */
CUresult cuDeviceGetName(char *name, int length, int device) {
  const char *names = getenv("FAKE_CUDA_NAMES");
  for (int index = 0; names && *names; ++index) {
    const char *end = strchr(names, ',');
    size_t size = end ? (size_t)(end - names) : strlen(names);
    if (index == device) {
      snprintf(name, (size_t)length, "%.*s", (int)size, names);
      return 0;
    }
    names = end ? end + 1 : NULL;
  }
  snprintf(name, (size_t)length, "Fake CUDA device");
  return 0;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  const char *capability = envOr("FAKE_CUDA_CAPABILITY", "9.0");
  switch (attribute) {
  case 1: /* max threads per block */
    *value = 1024;
    return 0;
  case 5: /* max grid x */
    *value = 2147483647;
    return 0;
  case 6:
  case 7:
    *value = 65535;
    return 0;
  case 13: /* clock rate, kHz */
    *value = 1980000;
    return 0;
  case 16: /* multiprocessors */
    *value = 132;
    return 0;
  case 36: /* memory clock, kHz */
    *value = 2619000;
    return 0;
  case 37: /* bus width */
    *value = 5120;
    return 0;
  case 75:
    *value = atoi(capability);
    return 0;
  case 82: /* registers per SM */
    *value = 65536;
    return 0;
  case 76: {
    const char *dot = strchr(capability, '.');
    *value = dot ? atoi(dot + 1) : 0;
    return 0;
  }
  case 39: /* resident threads per SM */
    *value = 2048;
    return 0;
  case 81: /* shared memory per SM */
    *value = atoi(envOr("FAKE_CUDA_SHARED_PER_SM", "233472"));
    return 0;
  case 97:
    *value = atoi(envOr("FAKE_CUDA_SHARED_OPTIN", "232448"));
    return 0;
  case 106: /* resident blocks per SM */
    *value = 32;
    return 0;
  case 111: /* shared memory the driver reserves per block */
    *value = 1024;
    return 0;
  default:
    *value = 0;
    return 1;
  }
}

CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  if (device < 0 || device >= deviceCount())
    return kInvalidDevice;
  contexts[device].device = device;
  *context = &contexts[device];
  return 0;
}

CUresult cuCtxGetCurrent(void **context) {
  *context = current();
  return 0;
}

CUresult cuCtxSetCurrent(void *context) {
  if (!context) {
    if (contextDepth > 0)
      --contextDepth;
    return 0;
  }
  if (contextDepth == 0)
    contextDepth = 1;
  contextStack[contextDepth - 1] = context;
  return 0;
}

CUresult cuCtxPushCurrent_v2(void *context) {
  if (!context || contextDepth == kMaxContextDepth)
    return 1;
  contextStack[contextDepth++] = context;
  return 0;
}

CUresult cuCtxPopCurrent_v2(void **context) {
  if (contextDepth == 0)
    return kInvalidContext;
  if (context)
    *context = contextStack[contextDepth - 1];
  --contextDepth;
  return 0;
}

CUresult cuCtxGetDevice(int *device) {
  if (!current())
    return kInvalidContext;
  *device = current()->device;
  return 0;
}

CUresult cuLinkCreate_v2(unsigned count, int *options, void **values,
                         void **state) {
  (void)count, (void)options, (void)values;
  RETURN_IF_CONTEXT_LOST();
  if (!current())
    return kInvalidContext;
  *state = calloc(1, sizeof(LinkState));
  return 0;
}

CUresult cuLinkAddData_v2(void *state, int type, void *data, size_t size,
                          const char *name, unsigned count, int *options,
                          void **values) {
  (void)state, (void)type, (void)name, (void)count, (void)options,
      (void)values;
  RETURN_IF_CONTEXT_LOST();
  /* FAKE_CUDA_LINK_FAIL_AT=B: PTX asking for B blocks per SM does not link. */
  const char *failAt = getenv("FAKE_CUDA_LINK_FAIL_AT");
  const char *asked = strstr((const char *)data, ".minnctapersm ");
  if (failAt && *failAt && asked &&
      atoi(asked + strlen(".minnctapersm ")) == atoi(failAt))
    return 218; /* CUDA_ERROR_INVALID_PTX */
  LinkState *link = state;
  free(link->image);
  link->image = malloc(size + 1);
  memcpy(link->image, data, size);
  link->image[size] = 0;
  link->size = size;
  return 0;
}

CUresult cuLinkComplete(void *state, void **image, size_t *size) {
  RETURN_IF_CONTEXT_LOST();
  LinkState *link = state;
  pthread_mutex_lock(&lock);
  ++linkCount;
  lastLinkDevice = current() ? current()->device : -1;
  pthread_mutex_unlock(&lock);
  *image = link->image;
  *size = link->size;
  return 0;
}

CUresult cuLinkDestroy(void *state) {
  LinkState *link = state;
  if (link)
    free(link->image);
  free(link);
  return 0;
}

CUresult cuModuleLoadData(void **module, const void *image) {
  /* Handles are serial numbers: images are the caller's buffers, and an
   * address can come back for another module once one is freed. */
  RETURN_IF_CONTEXT_LOST();
  FakeContext *context = current();
  if (!context)
    return kInvalidContext;
  pthread_mutex_lock(&lock);
  uintptr_t handle = ++moduleCount;
  int read = readEntries((const char *)image, handle);
  for (int i = 0; i < functionCount; ++i)
    if (functions[i].module == handle)
      functions[i].device = context->device;
  if (read != 0)
    freeModule(handle);
  else
    ++moduleLoadsOn[context->device];
  pthread_mutex_unlock(&lock);
  if (read != 0)
    return 218; /* CUDA_ERROR_INVALID_PTX */
  *module = (void *)handle;
  return 0;
}

CUresult cuModuleUnload(void *module) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < functionCount; ++i)
    if (functions[i].module == (uintptr_t)module) {
      --moduleLoadsOn[functions[i].device];
      break;
    }
  freeModule((uintptr_t)module);
  pthread_mutex_unlock(&lock);
  return 0;
}

CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  RETURN_IF_CONTEXT_LOST();
  CUresult result = 500; /* CUDA_ERROR_NOT_FOUND */
  pthread_mutex_lock(&lock);
  for (int i = functionCount - 1; i >= 0; --i)
    if (functions[i].module == (uintptr_t)module &&
        strcmp(functions[i].name, name) == 0) {
      *function = &functions[i];
      result = 0;
      break;
    }
  pthread_mutex_unlock(&lock);
  return result;
}

CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  (void)function, (void)attribute, (void)value;
  RETURN_IF_CONTEXT_LOST();
  return 0;
}

CUresult cuFuncGetAttribute(int *value, int attribute, void *function) {
  RETURN_IF_CONTEXT_LOST();
  const FakeFunction *callee = function;
  /* "preferred[,minimum]": what the kernel takes when it may, and the least
   * it can be squeezed to without spilling. */
  const char *registers = callee->registers[0]
                              ? callee->registers
                              : envOr("FAKE_CUDA_REGISTERS", "32");
  int preferred = atoi(registers), minimum = preferred, budget = 255;
  const char *comma = strchr(registers, ',');
  if (comma)
    minimum = atoi(comma + 1);
  if (callee->minBlocksPerSM > 0 && callee->threadsPerBlock > 0) {
    budget = 65536 / (callee->minBlocksPerSM * callee->threadsPerBlock) / 8 * 8;
    if (budget > 255)
      budget = 255;
  }
  int used = preferred < budget ? preferred : budget;
  switch (attribute) {
  case 3: /* local bytes: what did not fit the budget */
    *value = budget < minimum ? 4 * (minimum - budget) : 0;
    return 0;
  case 4: /* registers */
    *value = used;
    return 0;
  default:
    *value = 0;
    return 0;
  }
}

CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  (void)extra;
  static int error = -1; /* read once: launches are timed through this too */
  if (error < 0)
    error = atoi(envOr("FAKE_CUDA_LAUNCH_ERROR", "0"));
  if (error)
    return error;
  RETURN_IF_CONTEXT_LOST();
  const FakeFunction *callee = function;
  /* A function runs in its module's context, which must be current. */
  FakeContext *context = current();
  if (!context || context->device != callee->device)
    return kInvalidContext;
  /* Memory of another device (tagged addresses) would fault. */
  if (deviceCount() > 1)
    for (int i = 0; i < callee->count; ++i) {
      uint64_t value;
      if (callee->sizes[i] != 8)
        continue;
      memcpy(&value, params[i], 8);
      int device = taggedDevice(value);
      if (device >= 0 && device != context->device) {
        pthread_mutex_lock(&lock);
        ++wrongDeviceCount;
        pthread_mutex_unlock(&lock);
        return 700; /* CUDA_ERROR_ILLEGAL_ADDRESS */
      }
    }
  pthread_mutex_lock(&lock);
  ++launchesOn[context->device];
  last.device = context->device;
  last.grid[0] = gx, last.grid[1] = gy, last.grid[2] = gz;
  last.block[0] = bx, last.block[1] = by, last.block[2] = bz;
  last.sharedBytes = shared;
  last.stream = (uint64_t)(uintptr_t)stream;
  last.function = callee;
  last.used = 0;
  CUresult result = 0;
  for (int i = 0; i < callee->count && !result; ++i) {
    int size = callee->sizes[i];
    if (last.used + size > kMaxParamBytes) {
      result = 1;
      break;
    }
    memcpy(last.bytes + last.used, params[i], (size_t)size);
    last.used += size;
  }
  if (!result) {
    history[launchCount % kHistory] = last;
    ++launchCount;
    static long long faultAt = -1;
    if (faultAt < 0)
      faultAt = atoll(envOr("FAKE_CUDA_FAULT_AT", "0"));
    if (launchCount == faultAt)
      contextLost = 1;
  }
  pthread_mutex_unlock(&lock);
  return result;
}

CUresult cuTensorMapEncodeTiled(void *map, int dataType, unsigned rank,
                                void *address, const uint64_t *dims,
                                const uint64_t *strides, const uint32_t *box,
                                const uint32_t *elementStrides, int interleave,
                                int swizzle, int l2Promotion, int oobFill) {
  (void)elementStrides, (void)interleave;
  if (rank < 1 || rank > 5)
    return 1;
  FakeTensorMap record;
  memset(&record, 0, sizeof(record));
  memcpy(record.magic, "FKTM", 4);
  record.dataType = (uint32_t)dataType;
  record.rank = rank;
  record.swizzle = (uint32_t)swizzle;
  record.address = (uint64_t)(uintptr_t)address;
  record.l2Promotion = (uint32_t)l2Promotion;
  record.oobFill = (uint32_t)oobFill;
  for (unsigned i = 0; i < rank; ++i) {
    record.dims[i] = dims[i];
    record.box[i] = box[i];
    if (i + 1 < rank)
      record.strides[i] = strides[i];
  }
  memset(map, 0, 128);
  memcpy(map, &record, sizeof(record));
  ++encodeCount;
  return 0;
}

/*===------------------------------------------------------------------===*
 * What tests read (through ctypes)
 *===------------------------------------------------------------------===*/

long long fakeCudaLaunchCount(void) { return launchCount; }

long long fakeCudaEncodeCount(void) { return encodeCount; }

long long fakeCudaLinkCount(void) { return linkCount; }

/* Launches in device `device`'s context, and the modules loaded there and
 * not unloaded (the occupancy search's trial modules are unloaded). */
long long fakeCudaLaunchCountOn(int device) {
  return device >= 0 && device < kMaxDevices ? launchesOn[device] : -1;
}

long long fakeCudaModuleLoadsOn(int device) {
  return device >= 0 && device < kMaxDevices ? moduleLoadsOn[device] : -1;
}

/* Launches refused for passing memory of another device. */
long long fakeCudaWrongDeviceCount(void) { return wrongDeviceCount; }

/* The device of the calling thread's current context, -1 when none. */
int fakeCudaCurrentDevice(void) { return current() ? current()->device : -1; }

/* Makes device `device`'s primary context current on the calling thread
 * (as torch.cuda.set_device does), or none for -1. */
int fakeCudaSetDevice(int device) {
  if (device < 0)
    return cuCtxSetCurrent(NULL);
  void *context = NULL;
  CUresult result = cuDevicePrimaryCtxRetain(&context, device);
  return result ? result : cuCtxSetCurrent(context);
}

/* The device of the last link's context. */
int fakeCudaLastLinkDevice(void) { return lastLinkDevice; }

/* The device of the last launch's context. */
int fakeCudaLastLaunchDevice(void) { return last.function ? last.device : -1; }

/* The last launch: dims = {grid x, y, z, block x, y, z, shared bytes}; the
 * kernel's name; its parameter sizes and their bytes, packed one after the
 * other. Returns the number of parameters, or -1 before any launch. */
static int describeLaunch(const LaunchRecord *record, unsigned *dims,
                          uint64_t *stream, char *name, int nameCapacity,
                          int *sizes, int sizesCapacity, unsigned char *bytes,
                          int bytesCapacity);

int fakeCudaLastLaunch(unsigned *dims, uint64_t *stream, char *name,
                       int nameCapacity, int *sizes, int sizesCapacity,
                       unsigned char *bytes, int bytesCapacity) {
  return describeLaunch(&last, dims, stream, name, nameCapacity, sizes,
                        sizesCapacity, bytes, bytesCapacity);
}

/* Launch number `number` (from 1, one of the last kHistory made), as
 * fakeCudaLastLaunch describes it; -1 when it is not kept. */
int fakeCudaLaunchAt(long long number, unsigned *dims, uint64_t *stream,
                     char *name, int nameCapacity, int *sizes,
                     int sizesCapacity, unsigned char *bytes,
                     int bytesCapacity) {
  if (number < 1 || number > launchCount || number <= launchCount - kHistory)
    return -1;
  return describeLaunch(&history[(number - 1) % kHistory], dims, stream, name,
                        nameCapacity, sizes, sizesCapacity, bytes,
                        bytesCapacity);
}

static int describeLaunch(const LaunchRecord *record, unsigned *dims,
                          uint64_t *stream, char *name, int nameCapacity,
                          int *sizes, int sizesCapacity, unsigned char *bytes,
                          int bytesCapacity) {
  const LaunchRecord last = *record;
  if (!last.function)
    return -1;
  for (int i = 0; i < 3; ++i) {
    dims[i] = last.grid[i];
    dims[3 + i] = last.block[i];
  }
  dims[6] = last.sharedBytes;
  *stream = last.stream;
  snprintf(name, (size_t)nameCapacity, "%s", last.function->name);
  int count = last.function->count;
  for (int i = 0; i < count && i < sizesCapacity; ++i)
    sizes[i] = last.function->sizes[i];
  memcpy(bytes, last.bytes,
         (size_t)(last.used < bytesCapacity ? last.used : bytesCapacity));
  return count;
}
