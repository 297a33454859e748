"""The tools that mine, label and rebuild the sets in testdata/ (corpus, corpus-fresh,
introduced, tampering, ordinary); run them with scripts/corpus <tool>. `rules` is the corpus's
labeling rule; `fetch-list.txt` here names the snapshots the default corpus is mined from."""
