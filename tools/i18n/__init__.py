"""The Chinese edition of the lessons: one gettext catalogue per lesson (catalogue.py, read and written by
pofile.py) and the Chinese notebooks built from them (edition.py). The command line is tools/zh.py."""
