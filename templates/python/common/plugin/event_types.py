"""The events the platform posts to the webhook, as typed dictionaries: what each handler receives.

They are `TypedDict`s: at run time each event is the plain `dict` parsed from the JSON body (nothing
is converted or checked here), while editors and type checkers (mypy, pyright) know every key and
its type. The fields are plugsmith's event schemas (`plugsmith trigger --help` lists the events).
"""

from __future__ import annotations

from typing import Any, List, Literal, Optional, TypedDict


class _PluginInstanceOptional(TypedDict, total=False):
    agentId: str  # present when the instance is attached to an agent


class PluginInstance(_PluginInstanceOptional):
    """One installation of the plugin on an agent, a repository or an app."""

    id: str
    entityId: str
    entityType: Literal["AGENT", "REPOSITORY", "APP"]
    eventDispatchCondition: Any
    eventDispatchMode: str
    events: List[str]
    inputs: dict[str, Any]
    name: str
    orgId: str
    pluginId: str
    scopes: List[str]
    createdAt: str
    updatedAt: str


class Attachment(TypedDict):
    type: str
    content: str


class Message(TypedDict):
    """A message of a conversation (the user's, for AGENT_MESSAGE_RECEIVED)."""

    id: str
    conversationId: str
    sender: str
    type: str
    content: str
    attachments: List[Attachment]
    isStreaming: bool
    createdAt: str
    updatedAt: str


class File(TypedDict):
    """A repository's file as events carry it (the platform may add fields)."""

    id: str
    fileName: str
    contentType: Optional[str]
    fileSize: Optional[int]
    isPublic: bool
    status: Optional[str]
    errorMessage: Optional[str]
    parentId: Optional[str]
    parentType: Optional[str]
    folder: Optional[str]
    orgId: str
    createdAt: str
    updatedAt: str


class PluginInstalledData(TypedDict):
    instance: PluginInstance
    accessToken: str  # the installation's token, carrying the instance's scopes: a secret


class PluginUninstalledData(TypedDict):
    instance: PluginInstance


class AgentMessageReceivedData(TypedDict):
    agentId: str
    characterId: str
    conversationId: str
    message: Message


class RepositoryFileData(TypedDict):
    repositoryId: str
    file: File


class _Event(TypedDict):
    id: str  # the same on every retry of one delivery: the webhook-id header
    createdAt: str
    pluginId: str
    pluginInstanceId: str  # the installation the event is for
    orgId: str


class PluginInstalledEvent(_Event):
    type: Literal["PLUGIN_INSTALLED"]
    data: PluginInstalledData


class PluginUninstalledEvent(_Event):
    type: Literal["PLUGIN_UNINSTALLED"]
    data: PluginUninstalledData


class AgentMessageReceivedEvent(_Event):
    type: Literal["AGENT_MESSAGE_RECEIVED"]
    data: AgentMessageReceivedData


class RepositoryFileAddedEvent(_Event):
    type: Literal["REPOSITORY_FILE_ADDED"]
    data: RepositoryFileData


class RepositoryFileRemovedEvent(_Event):
    type: Literal["REPOSITORY_FILE_REMOVED"]
    data: RepositoryFileData
