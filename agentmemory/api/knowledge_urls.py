"""URLs of the knowledge API: knowledge bases, documents, versions, chunk previews, the review queue, import jobs."""
from django.urls import path

from . import knowledge_views as views

urlpatterns = [
    path("knowledge-bases/", views.KnowledgeBaseListView.as_view(), name="knowledge-base-list"),
    path("knowledge-bases/<slug:slug>/", views.KnowledgeBaseDetailView.as_view(), name="knowledge-base-detail"),
    path("knowledge-bases/<slug:slug>/reembed/", views.KnowledgeBaseReembedView.as_view(),
         name="knowledge-base-reembed"),
    path("knowledge-bases/<slug:slug>/documents/", views.DocumentListView.as_view(), name="document-list"),
    path("knowledge-bases/<slug:slug>/documents/<str:pk>/", views.DocumentDetailView.as_view(),
         name="document-detail"),
    path("knowledge-bases/<slug:slug>/documents/<str:pk>/chunks/", views.DocumentChunksView.as_view(),
         name="document-chunks"),
    path("knowledge-bases/<slug:slug>/documents/<str:pk>/rollback/", views.DocumentRollbackView.as_view(),
         name="document-rollback"),
    path("knowledge-bases/<slug:slug>/documents/<str:pk>/publish/", views.DocumentPublishView.as_view(),
         name="document-publish"),
    path("knowledge-bases/<slug:slug>/documents/<str:pk>/discard/", views.DocumentDiscardView.as_view(),
         name="document-discard"),
    path("knowledge-bases/<slug:slug>/held-versions/", views.HeldVersionListView.as_view(), name="held-version-list"),
    path("import-jobs/<int:pk>/", views.ImportJobDetailView.as_view(), name="import-job-detail"),
]
