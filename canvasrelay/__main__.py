import sys

from canvasrelay.cli.main import main

sys.exit(main())
