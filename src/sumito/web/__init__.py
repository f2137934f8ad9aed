"""The web app (``sumito serve``): a static page and the JSON API behind it (docs/web-api.md).

:func:`sumito.web.app.create_app` builds the FastAPI app; importing this package does not import
FastAPI, so the rest of the command line starts as fast without it.
"""
