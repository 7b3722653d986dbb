/* jieba's accurate mode with the HMM (Tokenizer.cut(s, HMM=True)) for runs of CJK characters, in C.
 *
 * The same algorithm on the same data, step for step: the prefix DAG looked up in the tokenizer's own
 * FREQ dict, the best route by log frequencies (ties to the longer word, as Python's tuple max), runs of
 * single characters not in the dictionary cut by finalseg's Viterbi over the same start, transition and
 * emission tables (ties to the later state letter, as there). Double arithmetic in the same order and
 * libm's log, so the words are identical (tests/text/test_segment.py compares the two on random text).
 * It is a speed-up only: agentmemory.text.tokenize falls back to jieba whenever it is not built, and
 * ``cut`` returns None for input it does not cover (any character outside the CJK ranges that
 * tokenize's runs are made of), which the caller then gives to jieba.
 *
 * Build: setup.py, optional; no -ffast-math (the sums must round as Python's do).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_FLOAT (-3.14e100)
#define HAN_LO 0x4E00 /* jieba's re_han: [\u4E00-\u9FD5] */
#define HAN_HI 0x9FD5
#define NHAN (HAN_HI - HAN_LO + 1)

/* finalseg's states in its 'BMES' order, and their letters for its tie-breaks */
enum { B = 0, M = 1, E = 2, S = 3 };
static const char LETTER[4] = { 'B', 'M', 'E', 'S' };
static const int PREV[4][2] = { { E, S }, { M, B }, { B, M }, { S, E } }; /* PrevStatus */

static double start_p[4], trans_p[4][4];
static double *emit_p = NULL; /* [state][han char] */
static int model_ready = 0;

/* the characters tokenize's CJK runs are made of (its _CJK class) */
static inline int in_domain(Py_UCS4 c) {
    return (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF);
}

static inline int is_han(Py_UCS4 c) { return c >= HAN_LO && c <= HAN_HI; }

static int state_of(PyObject *key) {
    if (!PyUnicode_Check(key) || PyUnicode_GET_LENGTH(key) != 1) return -1;
    switch (PyUnicode_READ_CHAR(key, 0)) {
    case 'B': return B;
    case 'M': return M;
    case 'E': return E;
    case 'S': return S;
    default: return -1;
    }
}

static int read_double(PyObject *value, double *out) {
    double d = PyFloat_AsDouble(value);
    if (d == -1.0 && PyErr_Occurred()) return -1;
    *out = d;
    return 0;
}

/* set_model(start_P, trans_P, emit_P): finalseg's three tables (dicts keyed by state letters) */
static PyObject *set_model(PyObject *self, PyObject *args) {
    PyObject *start, *trans, *emit, *key, *value;
    Py_ssize_t pos;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyDict_Type, &start, &PyDict_Type, &trans, &PyDict_Type, &emit))
        return NULL;
    double *table = (double *)PyMem_Malloc(sizeof(double) * 4 * NHAN);
    if (!table) return PyErr_NoMemory();
    for (int y = 0; y < 4; y++) {
        start_p[y] = MIN_FLOAT;
        for (int z = 0; z < 4; z++) trans_p[y][z] = MIN_FLOAT;
        for (int c = 0; c < NHAN; c++) table[y * NHAN + c] = MIN_FLOAT;
    }
    pos = 0;
    while (PyDict_Next(start, &pos, &key, &value)) {
        int y = state_of(key);
        if (y < 0 || read_double(value, &start_p[y]) < 0) goto bad;
    }
    pos = 0;
    while (PyDict_Next(trans, &pos, &key, &value)) {
        int y0 = state_of(key);
        PyObject *k2, *v2;
        Py_ssize_t p2 = 0;
        if (y0 < 0 || !PyDict_Check(value)) goto bad;
        while (PyDict_Next(value, &p2, &k2, &v2)) {
            int y = state_of(k2);
            if (y < 0 || read_double(v2, &trans_p[y0][y]) < 0) goto bad;
        }
    }
    pos = 0;
    while (PyDict_Next(emit, &pos, &key, &value)) {
        int y = state_of(key);
        PyObject *k2, *v2;
        Py_ssize_t p2 = 0;
        if (y < 0 || !PyDict_Check(value)) goto bad;
        while (PyDict_Next(value, &p2, &k2, &v2)) {
            if (!PyUnicode_Check(k2) || PyUnicode_GET_LENGTH(k2) != 1) continue;
            Py_UCS4 c = PyUnicode_READ_CHAR(k2, 0);
            if (!is_han(c)) continue; /* only han characters ever reach the HMM */
            if (read_double(v2, &table[y * NHAN + (c - HAN_LO)]) < 0) goto bad;
        }
    }
    PyMem_Free(emit_p);
    emit_p = table;
    model_ready = 1;
    Py_RETURN_NONE;
bad:
    PyMem_Free(table);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "unexpected HMM table layout");
    return NULL;
}

/* Append text[a:b] to out. */
static int emit_word(PyObject *out, PyObject *text, Py_ssize_t a, Py_ssize_t b) {
    PyObject *word = PyUnicode_Substring(text, a, b);
    if (!word) return -1;
    int rc = PyList_Append(out, word);
    Py_DECREF(word);
    return rc;
}

/* finalseg.__cut(text[a:b]): Viterbi over han characters, then the words of the best state path. */
static int hmm_cut(PyObject *out, PyObject *text, int kind, const void *data, Py_ssize_t a, Py_ssize_t b) {
    Py_ssize_t n = b - a;
    double *V = (double *)PyMem_Malloc(sizeof(double) * 4 * (size_t)n);
    signed char *back = (signed char *)PyMem_Malloc((size_t)n * 4);
    signed char *states = (signed char *)PyMem_Malloc((size_t)n);
    int rc = -1;
    if (!V || !back || !states) { PyErr_NoMemory(); goto done; }
    {
        const double *em0 = emit_p + (PyUnicode_READ(kind, data, a) - HAN_LO);
        for (int y = 0; y < 4; y++) V[y] = start_p[y] + em0[y * NHAN];
    }
    for (Py_ssize_t t = 1; t < n; t++) {
        const Py_UCS4 c = PyUnicode_READ(kind, data, a + t);
        for (int y = 0; y < 4; y++) {
            const double em = emit_p[y * NHAN + (c - HAN_LO)];
            int best = -1;
            double bp = 0.0;
            for (int j = 0; j < 2; j++) {
                const int y0 = PREV[y][j];
                const double p = V[(t - 1) * 4 + y0] + trans_p[y0][y] + em;
                /* max over (prob, state letter) tuples */
                if (best < 0 || p > bp || (p == bp && LETTER[y0] > LETTER[best])) { bp = p; best = y0; }
            }
            V[t * 4 + y] = bp;
            back[t * 4 + y] = (signed char)best;
        }
    }
    {
        const double pe = V[(n - 1) * 4 + E], ps = V[(n - 1) * 4 + S];
        int y = (pe > ps) ? E : S; /* max((V[E], 'E'), (V[S], 'S')): a tie goes to 'S' */
        for (Py_ssize_t t = n - 1; t >= 0; t--) {
            states[t] = (signed char)y;
            if (t > 0) y = back[t * 4 + y];
        }
    }
    {
        Py_ssize_t begin = 0, next = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            const int pos = states[i];
            if (pos == B) begin = i;
            else if (pos == E) { if (emit_word(out, text, a + begin, a + i + 1) < 0) goto done; next = i + 1; }
            else if (pos == S) { if (emit_word(out, text, a + i, a + i + 1) < 0) goto done; next = i + 1; }
        }
        if (next < n && emit_word(out, text, a + next, b) < 0) goto done;
    }
    rc = 0;
done:
    PyMem_Free(V);
    PyMem_Free(back);
    PyMem_Free(states);
    return rc;
}

/* FREQ.get(text[a:b]): 1 truthy, 0 missing or falsy, -1 error. With value, its frequency. */
static int lookup(PyObject *freq, PyObject *text, Py_ssize_t a, Py_ssize_t b, int *present, double *value) {
    PyObject *frag = PyUnicode_Substring(text, a, b);
    if (!frag) return -1;
    PyObject *v = PyDict_GetItemWithError(freq, frag);
    Py_DECREF(frag);
    if (!v) {
        *present = 0;
        return PyErr_Occurred() ? -1 : 0;
    }
    *present = 1;
    int truth = PyObject_IsTrue(v);
    if (truth <= 0) return truth;
    if (value && read_double(v, value) < 0) return -1;
    return 1;
}

typedef struct { Py_ssize_t x; double logf; } edge;
typedef struct { edge *items; Py_ssize_t used, cap; } edges_t;

static int push_edge(edges_t *e, Py_ssize_t x, double logf) {
    if (e->used == e->cap) {
        Py_ssize_t cap = e->cap * 2;
        edge *grown = (edge *)PyMem_Realloc(e->items, sizeof(edge) * (size_t)cap);
        if (!grown) { PyErr_NoMemory(); return -1; }
        e->items = grown;
        e->cap = cap;
    }
    e->items[e->used].x = x;
    e->items[e->used].logf = logf;
    e->used++;
    return 0;
}

/* Tokenizer.__cut_DAG(text[a:b]) for a block of han characters. Returns 0, -1 on error, 1 when the
 * dictionary holds something this code does not reproduce (a non-positive frequency): then jieba. */
static int dag_cut(PyObject *out, PyObject *text, int kind, const void *data, Py_ssize_t a, Py_ssize_t b,
                   PyObject *freq, double logtotal) {
    const Py_ssize_t N = b - a;
    edges_t dag = { NULL, 0, N * 4 + 16 };
    dag.items = (edge *)PyMem_Malloc(sizeof(edge) * (size_t)dag.cap);
    Py_ssize_t *first = (Py_ssize_t *)PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(N + 1));
    double *route_p = (double *)PyMem_Malloc(sizeof(double) * (size_t)(N + 1));
    Py_ssize_t *route_x = (Py_ssize_t *)PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(N + 1));
    int rc = -1;
    if (!dag.items || !first || !route_p || !route_x) { PyErr_NoMemory(); goto done; }

    /* get_DAG: for each start k, every end i whose fragment has a (truthy) frequency */
    for (Py_ssize_t k = 0; k < N; k++) {
        first[k] = dag.used;
        for (Py_ssize_t i = k; i < N; i++) {
            int present = 0;
            double f = 0.0;
            int truth = lookup(freq, text, a + k, a + i + 1, &present, &f);
            if (truth < 0) goto done;
            if (!present) break;
            if (truth) {
                if (!(f > 0.0)) { rc = 1; goto done; }
                if (push_edge(&dag, i, log(f)) < 0) goto done;
            }
        }
        /* no word starts here: the character alone, log(FREQ.get(c) or 1) = 0 */
        if (dag.used == first[k] && push_edge(&dag, k, 0.0) < 0) goto done;
    }
    first[N] = dag.used;

    /* calc: the best route from the end, max over (log p, x) tuples (a tie goes to the longer word) */
    route_p[N] = 0.0;
    route_x[N] = 0;
    for (Py_ssize_t idx = N - 1; idx >= 0; idx--) {
        double best = 0.0;
        Py_ssize_t bx = -1;
        for (Py_ssize_t e = first[idx]; e < first[idx + 1]; e++) {
            const Py_ssize_t x = dag.items[e].x;
            const double p = dag.items[e].logf - logtotal + route_p[x + 1];
            if (bx < 0 || p > best || (p == best && x > bx)) { best = p; bx = x; }
        }
        route_p[idx] = best;
        route_x[idx] = bx;
    }

    /* the walk: words of the route; runs of single characters go to the HMM unless they are a word */
    {
        Py_ssize_t x = 0, buf = -1; /* buf: start of the pending run of single characters, -1 none */
        while (x <= N) {
            const int at_end = (x == N);
            const Py_ssize_t y = at_end ? N : route_x[x] + 1;
            if (!at_end && y - x == 1) {
                if (buf < 0) buf = x;
                x = y;
                continue;
            }
            if (buf >= 0) {
                const Py_ssize_t len = x - buf;
                if (len == 1) {
                    if (emit_word(out, text, a + buf, a + x) < 0) goto done;
                } else {
                    int present = 0;
                    int truth = lookup(freq, text, a + buf, a + x, &present, NULL);
                    if (truth < 0) goto done;
                    if (!truth) {
                        if (hmm_cut(out, text, kind, data, a + buf, a + x) < 0) goto done;
                    } else {
                        for (Py_ssize_t c = buf; c < x; c++)
                            if (emit_word(out, text, a + c, a + c + 1) < 0) goto done;
                    }
                }
                buf = -1;
            }
            if (at_end) break;
            if (emit_word(out, text, a + x, a + y) < 0) goto done;
            x = y;
        }
    }
    rc = 0;
done:
    PyMem_Free(dag.items);
    PyMem_Free(first);
    PyMem_Free(route_p);
    PyMem_Free(route_x);
    return rc;
}

/* cut(text, freq, total) -> list of words, or None when jieba must do it */
static PyObject *cut(PyObject *self, PyObject *args) {
    PyObject *text, *freq, *total;
    if (!PyArg_ParseTuple(args, "UO!O", &text, &PyDict_Type, &freq, &total)) return NULL;
    if (!model_ready) {
        PyErr_SetString(PyExc_RuntimeError, "set_model() first");
        return NULL;
    }
    double tot;
    if (read_double(total, &tot) < 0) return NULL;
    if (!(tot > 0.0)) Py_RETURN_NONE;
    const double logtotal = log(tot);
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!in_domain(PyUnicode_READ(kind, data, i))) Py_RETURN_NONE;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    Py_ssize_t i = 0;
    while (i < n) {
        Py_ssize_t j = i;
        if (is_han(PyUnicode_READ(kind, data, i))) {
            while (j < n && is_han(PyUnicode_READ(kind, data, j))) j++;
            int rc = dag_cut(out, text, kind, data, i, j, freq, logtotal);
            if (rc < 0) { Py_DECREF(out); return NULL; }
            if (rc > 0) { Py_DECREF(out); Py_RETURN_NONE; }
        } else { /* outside re_han: jieba yields each character alone */
            j = i + 1;
            if (emit_word(out, text, i, j) < 0) { Py_DECREF(out); return NULL; }
        }
        i = j;
    }
    return out;
}

static PyMethodDef methods[] = {
    {"set_model", set_model, METH_VARARGS, "set_model(start_P, trans_P, emit_P): finalseg's HMM tables."},
    {"cut", cut, METH_VARARGS,
     "cut(text, FREQ, total) -> list[str] | None: jieba's Tokenizer.cut(text, HMM=True) for a run of CJK "
     "characters, or None when jieba itself must cut it."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_segment", NULL, -1, methods};

PyMODINIT_FUNC PyInit__segment(void) { return PyModule_Create(&module); }
