/*
 * A stand-in libcuda.so.1 for tests on machines without a GPU: just the checkpoint part of the CUDA
 * driver API that the agent calls through ctypes (shared/reference/worker-transport.md §4.1), with
 * the real state machine and error codes, and a log of every call so a test can check the order
 * (lock all, then checkpoint all; restore all, then unlock all).
 *
 * "CUDA process" = a process that has libtorch mapped (the GPU engine's ranks import torch; its
 * main process does not), so the agent's CUDA-PID discovery is exercised too. State lives in
 * $DSW_FAKE_CUDA_DIR/state.<pid>, so a CRIU-restored process (same PID) is still "checkpointed".
 *
 *   gcc -shared -fPIC -o DIR/libcuda.so.1 test/gpu/fake/libcuda.c; LD_LIBRARY_PATH=DIR …
 * Never shipped; never used by run.sh on a real GPU box.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
enum { OK = 0, INVALID_VALUE = 1, ILLEGAL_STATE = 401 };
enum { RUNNING = 0, LOCKED = 1, CHECKPOINTED = 2, FAILED = 3 };

static const char *dir(void) {
  const char *d = getenv("DSW_FAKE_CUDA_DIR");
  return d && *d ? d : "/tmp";
}

static void note(const char *what, int pid, CUresult rc) {
  char p[1024];
  snprintf(p, sizeof p, "%s/calls.log", dir());
  FILE *f = fopen(p, "a");
  if (f) {
    fprintf(f, "%s %d %d\n", what, pid, rc);
    fclose(f);
  }
}

static int is_cuda(int pid) {
  char p[64], line[4096];
  snprintf(p, sizeof p, "/proc/%d/maps", pid);
  FILE *f = fopen(p, "r");
  if (!f) return 0;
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, "libtorch") != NULL;
  fclose(f);
  return found;
}

static int get_state(int pid) {
  char p[1024];
  int s = RUNNING;
  snprintf(p, sizeof p, "%s/state.%d", dir(), pid);
  FILE *f = fopen(p, "r");
  if (f) {
    if (fscanf(f, "%d", &s) != 1) s = RUNNING;
    fclose(f);
  }
  return s;
}

static void set_state(int pid, int s) {
  char p[1024];
  snprintf(p, sizeof p, "%s/state.%d", dir(), pid);
  FILE *f = fopen(p, "w");
  if (f) {
    fprintf(f, "%d\n", s);
    fclose(f);
  }
}

static CUresult transition(const char *what, int pid, int from, int to) {
  CUresult rc = OK;
  if (!is_cuda(pid)) rc = INVALID_VALUE;
  else if (get_state(pid) != from) rc = ILLEGAL_STATE;
  else set_state(pid, to);
  note(what, pid, rc);
  return rc;
}

CUresult cuInit(unsigned flags) { (void)flags; return OK; }
CUresult cuDriverGetVersion(int *v) { *v = 12080; return OK; }
CUresult cuGetErrorName(CUresult e, const char **s) {
  *s = e == OK ? "CUDA_SUCCESS" : e == INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_ILLEGAL_STATE";
  return OK;
}
CUresult cuCheckpointProcessGetRestoreThreadId(int pid, int *tid) {
  if (!is_cuda(pid)) return INVALID_VALUE;
  *tid = pid;
  return OK;
}
CUresult cuCheckpointProcessGetState(int pid, int *state) {
  if (!is_cuda(pid)) return INVALID_VALUE;
  *state = get_state(pid);
  return OK;
}
CUresult cuCheckpointProcessLock(int pid, void *args) { (void)args; return transition("lock", pid, RUNNING, LOCKED); }
CUresult cuCheckpointProcessCheckpoint(int pid, void *args) { (void)args; return transition("checkpoint", pid, LOCKED, CHECKPOINTED); }
CUresult cuCheckpointProcessRestore(int pid, void *args) { (void)args; return transition("restore", pid, CHECKPOINTED, LOCKED); }
CUresult cuCheckpointProcessUnlock(int pid, void *args) { (void)args; return transition("unlock", pid, LOCKED, RUNNING); }
