import sys

from canvasrelay.cli import main

sys.exit(main())
