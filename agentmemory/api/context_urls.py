"""URLs of the context API."""

urlpatterns: list = []
