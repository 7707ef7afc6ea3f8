/*
 * index.c: the memory store's indexes: a chained hash map from byte
 * strings to pointers (FNV-1a hashes, doubling at load factor 1) and the
 * per-job-type binary heaps of WAITING triggers, whose entries remember
 * their index so any of them can be removed in O(log n); and the walk over
 * due triggers in order across several heaps (a node's job types), with
 * the triggers it passes over held out of their heaps meanwhile.
 *
 * Locks: none here.  The maps and heaps belong to a store and are used
 * under its lock (memory.h); the functions handed the store assert it.
 */
#include "jobstore/memory/memory.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct mem_map_node {
  mem_map_node *next;
  uint64_t hash;
  void *value;
  size_t len;
  char key[];
};

static uint64_t hash_bytes(const void *key, size_t len) {
  const unsigned char *p = key;
  uint64_t h = UINT64_C(14695981039346656037);
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= UINT64_C(1099511628211);
  }
  return h;
}

static mem_map_node **find_slot(const mem_map *map, const void *key, size_t len,
                                uint64_t h) {
  if (map->nbuckets == 0) {
    assert(map->count == 0 && map->buckets == NULL);
    return NULL;
  }
  assert((map->nbuckets & (map->nbuckets - 1)) == 0 && map->buckets);
  mem_map_node **slot = &map->buckets[h & (map->nbuckets - 1)];
  for (; *slot; slot = &(*slot)->next)
    if ((*slot)->hash == h && (*slot)->len == len &&
        memcmp((*slot)->key, key, len) == 0)
      return slot;
  return slot;
}

void *chime__mem_map_get(const mem_map *map, const void *key, size_t len) {
  mem_map_node **slot = find_slot(map, key, len, hash_bytes(key, len));
  return slot && *slot ? (*slot)->value : NULL;
}

static int grow(mem_map *map) {
  size_t n = map->nbuckets ? map->nbuckets * 2 : 16;
  mem_map_node **b = calloc(n, sizeof *b);
  if (!b)
    return CHIME_ENOMEM;
  for (size_t i = 0; i < map->nbuckets; i++) {
    mem_map_node *node = map->buckets[i], *next;
    for (; node; node = next) {
      next = node->next;
      mem_map_node **head = &b[node->hash & (n - 1)];
      node->next = *head;
      *head = node;
    }
  }
  free(map->buckets);
  map->buckets = b;
  map->nbuckets = n;
  return 0;
}

int chime__mem_map_put(mem_map *map, const void *key, size_t len, void *value) {
  if (map->count >= map->nbuckets && grow(map) < 0 && map->nbuckets == 0)
    return CHIME_ENOMEM;
  uint64_t h = hash_bytes(key, len);
  mem_map_node **slot = find_slot(map, key, len, h);
  assert(slot != NULL && *slot == NULL); /* buckets exist; key is absent */
  mem_map_node *node = malloc(sizeof *node + len);
  if (!node)
    return CHIME_ENOMEM;
  node->next = NULL;
  node->hash = h;
  node->value = value;
  node->len = len;
  memcpy(node->key, key, len);
  *slot = node;
  map->count++;
  return 0;
}

void *chime__mem_map_del(mem_map *map, const void *key, size_t len) {
  mem_map_node **slot = find_slot(map, key, len, hash_bytes(key, len));
  if (!slot || !*slot)
    return NULL;
  mem_map_node *node = *slot;
  void *value = node->value;
  *slot = node->next;
  free(node);
  assert(map->count > 0);
  map->count--;
  return value;
}

void chime__mem_map_each(const mem_map *map, void (*fn)(void *, void *),
                         void *arg) {
  size_t count = map->count, seen = 0;
  for (size_t i = 0; i < map->nbuckets; i++)
    for (mem_map_node *node = map->buckets[i]; node; node = node->next) {
      fn(node->value, arg);
      seen++;
    }
  /* fn must not add or remove entries. */
  assert(seen == count && map->count == count);
  (void)count;
  (void)seen;
}

void **chime__mem_map_values(const mem_map *map, bool *ok) {
  *ok = true;
  if (map->count == 0)
    return NULL;
  void **v = malloc(map->count * sizeof *v);
  if (!v) {
    *ok = false;
    return NULL;
  }
  size_t n = 0;
  for (size_t i = 0; i < map->nbuckets; i++)
    for (mem_map_node *node = map->buckets[i]; node; node = node->next)
      v[n++] = node->value;
  assert(n == map->count);
  return v;
}

void chime__mem_map_clear(mem_map *map) {
  for (size_t i = 0; i < map->nbuckets; i++) {
    mem_map_node *node = map->buckets[i], *next;
    for (; node; node = next) {
      next = node->next;
      free(node);
    }
  }
  free(map->buckets);
  map->buckets = NULL;
  map->nbuckets = 0;
  map->count = 0;
}

size_t chime__mem_key(char *buf, size_t buf_len, const char *group,
                      const char *name) {
  assert(buf && group && name);
  size_t g = strlen(group), n = strlen(name);
  if (g + n + 2 > buf_len)
    return 0;
  memcpy(buf, group, g + 1);
  memcpy(buf + g + 1, name, n + 1);
  return g + n + 2;
}

/* ----------------------------------------------------------------- heaps */

int chime__mem_trigger_order(const mem_trigger *a, const mem_trigger *b) {
  int64_t x = a->t->state.next_fire_ms, y = b->t->state.next_fire_ms;
  if (x != y)
    return x < y ? -1 : 1;
  if (a->t->schedule.priority != b->t->schedule.priority)
    return a->t->schedule.priority > b->t->schedule.priority ? -1 : 1;
  int c = strcmp(a->t->group, b->t->group);
  return c ? c : strcmp(a->t->name, b->t->name);
}

mem_heap *chime__mem_heap_for(mem_store *s, const char *type) {
  MEM_ASSERT_LOCKED(s);
  size_t len = strlen(type);
  mem_heap *h = chime__mem_map_get(&s->heaps, type, len);
  if (h) {
    assert(strcmp(h->type, type) == 0 && h->count <= h->cap);
    return h;
  }
  h = calloc(1, sizeof *h);
  if (!h)
    return NULL;
  h->type = strdup(type);
  if (!h->type || chime__mem_map_put(&s->heaps, type, len, h) < 0) {
    free(h->type);
    free(h);
    return NULL;
  }
  return h;
}

static void place(mem_heap *h, size_t i, mem_trigger *mt) {
  assert(i < h->count && mt->heap == h);
  h->items[i] = mt;
  mt->heap_index = i;
}

static void sift_up(mem_heap *h, size_t i) {
  mem_trigger *mt = h->items[i];
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (chime__mem_trigger_order(h->items[parent], mt) <= 0)
      break;
    place(h, i, h->items[parent]);
    i = parent;
  }
  place(h, i, mt);
  assert(i == 0 || chime__mem_trigger_order(h->items[(i - 1) / 2], mt) <= 0);
}

static void sift_down(mem_heap *h, size_t i) {
  mem_trigger *mt = h->items[i];
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= h->count)
      break;
    if (child + 1 < h->count &&
        chime__mem_trigger_order(h->items[child + 1], h->items[child]) < 0)
      child++;
    if (chime__mem_trigger_order(mt, h->items[child]) <= 0)
      break;
    place(h, i, h->items[child]);
    i = child;
  }
  place(h, i, mt);
  assert(2 * i + 1 >= h->count ||
         chime__mem_trigger_order(mt, h->items[2 * i + 1]) <= 0);
  assert(2 * i + 2 >= h->count ||
         chime__mem_trigger_order(mt, h->items[2 * i + 2]) <= 0);
}

int chime__mem_heap_push(mem_heap *h, mem_trigger *mt) {
  assert(mt->heap == NULL && mt->claim == NULL);
  assert(mt->t->store_state == CHIME_STATE_WAITING);
  assert(strcmp(h->type, mt->job->j->type) == 0);
  assert(h->count <= h->cap);
  if (h->count == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 64;
    mem_trigger **items = realloc(h->items, cap * sizeof *items);
    if (!items)
      return CHIME_ENOMEM;
    h->items = items;
    h->cap = cap;
  }
  mt->heap = h;
  place(h, h->count++, mt);
  sift_up(h, mt->heap_index);
  return 0;
}

void chime__mem_heap_remove(mem_trigger *mt) {
  mem_heap *h = mt->heap;
  if (!h)
    return;
  size_t i = mt->heap_index;
  assert(i < h->count && h->items[i] == mt);
  mt->heap = NULL;
  h->count--;
  if (i == h->count)
    return;
  mem_trigger *moved = h->items[h->count];
  place(h, i, moved);
  sift_up(h, i);
  sift_down(h, moved->heap_index);
}

mem_trigger *chime__mem_heap_top(const mem_heap *h) {
  if (!h || h->count == 0)
    return NULL;
  mem_trigger *top = h->items[0];
  assert(top->heap == h && top->heap_index == 0);
  assert(top->t->store_state == CHIME_STATE_WAITING && top->claim == NULL);
  return top;
}

void chime__mem_heap_free(void *heap, void *unused) {
  mem_heap *h = heap;
  (void)unused;
  assert(h->count <= h->cap);
  free(h->type);
  free(h->items);
  free(h);
}

/* ------------------------------------------------------------ due order */

mem_heap **chime__mem_heaps_of(mem_store *s, const chime_type_set *types,
                               size_t *ret_n, bool *ok) {
  MEM_ASSERT_LOCKED(s);
  *ok = true;
  *ret_n = 0;
  if (!types) {
    mem_heap **all = (mem_heap **)chime__mem_map_values(&s->heaps, ok);
    *ret_n = *ok ? s->heaps.count : 0; /* never n heaps in a NULL array */
    return all;
  }
  if (types->count == 0)
    return NULL;
  mem_heap **hs = malloc(types->count * sizeof *hs);
  if (!hs) {
    *ok = false;
    return NULL;
  }
  size_t n = 0;
  for (size_t i = 0; i < types->count; i++) {
    mem_heap *h =
        chime__mem_map_get(&s->heaps, types->names[i], strlen(types->names[i]));
    if (h)
      hs[n++] = h;
  }
  *ret_n = n;
  return hs;
}

mem_trigger *chime__mem_first_due(mem_heap **hs, size_t n) {
  assert(hs || n == 0);
  mem_trigger *best = NULL;
  for (size_t i = 0; i < n; i++) {
    mem_trigger *top = chime__mem_heap_top(hs[i]);
    if (top && (!best || chime__mem_trigger_order(top, best) < 0))
      best = top;
  }
  return best;
}

bool chime__mem_hold(mem_held *h, mem_trigger *mt) {
  if (h->count == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 16;
    mem_trigger **items = realloc(h->items, cap * sizeof *items);
    if (!items)
      return false;
    h->items = items;
    h->cap = cap;
  }
  assert(mt->heap != NULL && mt->t->store_state == CHIME_STATE_WAITING);
  chime__mem_heap_remove(mt);
  h->items[h->count++] = mt;
  return true;
}
