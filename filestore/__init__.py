"""Stored files (quote PDFs) in a store every web and worker host reaches: settings.STORAGES["default"],
chosen by FILE_STORE (config/settings/base.py). `storage.DatabaseStorage` keeps them as rows of
`StoredFile` in the project's database, so nothing but PostgreSQL is shared between hosts."""
