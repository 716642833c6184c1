/* neardup.h — near-duplicate texts by MinHash and LSH (see neardup.c). */
#ifndef KPY_NEARDUP_H
#define KPY_NEARDUP_H
#include <stdbool.h>
#include <stdint.h>

typedef struct NearDup NearDup;
NearDup *nd_new(void);
void nd_free(NearDup *nd);
/* Add a text; returns its number (0, 1, ... in the order added). */
uint32_t nd_add(NearDup *nd, const char *text);
/* The number of tokens of text, as nd_add cuts it (identifiers and numbers,
 * or one punctuation character); '#' comments dropped when pycomments. */
uint32_t nd_ntokens(const char *text, bool pycomments);
/* Cluster the texts added: two whose estimated Jaccard similarity of
 * 5-token shingles is at least threshold are in one cluster.  rep[i] gets
 * the first text of i's cluster; returns how many texts are not their own
 * representative. */
uint32_t nd_cluster(NearDup *nd, double threshold, uint32_t *rep);

/* Decontamination: the 13-token n-grams of a reference corpus (the same
 * tokens as above), and how many of a text's n-grams it holds. */
typedef struct NGrams NGrams;
NGrams *ng_new(void);
void ng_free(NGrams *g);
void ng_addtext(NGrams *g, const char *text);
void ng_overlap(const NGrams *g, const char *text, uint32_t *hit, uint32_t *total);
#endif
