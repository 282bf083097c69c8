#!/usr/bin/env python
import sys

if __name__ == "__main__":
    from config.startup import main  # a database that does not answer: one line, exit status 1

    main(sys.argv)
