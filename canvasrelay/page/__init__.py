"""The guest page over HTTP, for `canvas serve` and `canvas signal` alike: the built bundle and where it
lives, what its pages may load and reach (their Content-Security-Policy and security headers), and the
routes that serve it. It never imports the server, so `canvas signal` serves the page without it."""
