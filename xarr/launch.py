"""``python -m xarr.launch -n N script.py args...``: xarr/distributed/launch.py."""

import sys

from xarr.distributed.launch import main

if __name__ == "__main__":
    sys.exit(main())
