"""Supplier price lists as distributors send them: read (`files`: CSV in any usual encoding and delimiter,
or XLSX, within size limits; `header`: the header found below title rows, by the supplier's mapping and
Russian and English synonyms; `cells`: numbers by the supplier's declared separators, stock and lead
times as people write them; `read`: rows to offers, with errors, skipped and unmatched rows), then
compared with the supplier's offers (`plan`). Reading never writes; procurement/services.py stores and
applies.
"""
