from .loop import main

raise SystemExit(main())
