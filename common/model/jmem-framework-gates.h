/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The gate each framework reads: vLLM, SGLang, TensorRT, PyTorch, Ollama
 * and llama.cpp decide whether a job fits by a number of their own, not by
 * jmem's estimate. For each, that number on this board (read, or
 * approximated from what jmem reads and said so), whether a need fits by
 * it, and where it and jmem's verdict part, what closes the gap. A pure
 * computation over the headroom and meminfo; the sources each gate is
 * taken from are cited in docs/headroom.md. */
#pragma once

#include <glib.h>

#include "jmem-headroom.h"
#include "jmem-meminfo.h"

G_BEGIN_DECLS

typedef enum {
  JMEM_GATE_VLLM,
  JMEM_GATE_SGLANG,
  JMEM_GATE_TENSORRT,
  JMEM_GATE_PYTORCH,
  JMEM_GATE_OLLAMA,
  JMEM_GATE_LLAMA_CPP,
  JMEM_GATE_N
} JmemGateId;

/* What Ollama sets aside on a CUDA device before placing layers
 * (ml/device.go, MinimumMemory). */
#define JMEM_GATE_OLLAMA_MINIMUM_KIB (457 * 1024)

/* What llama.cpp's --fit leaves free per device unless --fit-target says
 * otherwise (common/common.h, fit_params_target). */
#define JMEM_GATE_LLAMA_CPP_FIT_TARGET_KIB (1024 * 1024)

typedef struct {
  JmemGateId  id;
  const char *framework;    /* "vllm", as --for takes it */
  const char *reads;        /* the number its source compares, in its terms */
  const char *source;       /* file and function, and the revision read */
  gint64      kib;          /* that number here; -1 unknown */
  char       *fields;       /* how jmem has it, in meminfo's names: "MemAvailable - 1 GiB" */
  gboolean    approximated; /* jmem cannot read it (a CUDA call): @note says from what */
  const char *note;         /* why those fields, or how they approximate it; NULL */
  int         fits;         /* the need by that number: 1, 0; -1 no need or unknown */
  int         agrees;       /* with jmem's verdict: 1, 0; -1 no need or unknown */
  GPtrArray  *actions;      /* char*: what closes the gap; empty where they agree */
} JmemGate;

typedef struct {
  const JmemHeadroom *headroom;      /* for the need, jmem's verdict and its holders */
  const JmemMeminfo  *meminfo;       /* MemAvailable, MemFree, MemTotal */
  const char         *generation;    /* the board's: "orin", "thor", "xavier", ...; NULL off a Jetson */
  gboolean            discrete_gpu;  /* the gates read the card's memory, which jmem does not */
} JmemGatesInput;

/* JmemGate for every framework, in JmemGateId order, or only for @only
 * (JMEM_GATE_N: all of them). */
GPtrArray *jmem_gates_compute (const JmemGatesInput *input,
                               JmemGateId            only);

/* "vllm", "sglang", "tensorrt", "pytorch", "ollama", "llama.cpp". */
const char *jmem_gate_name (JmemGateId id);

/* The id of @name as jmem_gate_name() gives it; FALSE for any other. */
gboolean jmem_gate_from_name (const char *name,
                              JmemGateId *id);

/* "vllm, sglang, tensorrt, pytorch, ollama or llama.cpp": for messages. */
const char *jmem_gate_choices (void);

G_END_DECLS
