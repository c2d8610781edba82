"""Server reflection under both names clients ask for: ``grpc.reflection.v1alpha`` (grpcio-
reflection's own) and ``grpc.reflection.v1`` (what grpcurl and recent tools try first).

The two protocols are the same messages with the same field numbers under another package, so
one servicer answers both: grpcio-reflection's, registered a second time under the v1 name.
For ``describe`` of the v1 service itself, the v1 file is added to the descriptor pool, made
from grpcio-reflection's v1alpha file with its package renamed (public protobuf API only).
"""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2

V1_PACKAGE = "grpc.reflection.v1"
V1_SERVICE_NAME = f"{V1_PACKAGE}.ServerReflection"
V1_FILE = "grpc/reflection/v1/reflection.proto"
_V1ALPHA_PACKAGE = "grpc.reflection.v1alpha"


def _add_v1_file(pool: Any) -> None:
    """The v1 reflection file in ``pool`` (unless it is there already): v1alpha's, renamed."""
    try:
        pool.FindFileByName(V1_FILE)
        return
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name = V1_FILE
    proto.package = V1_PACKAGE
    old, new = f".{_V1ALPHA_PACKAGE}.", f".{V1_PACKAGE}."
    for message in proto.message_type:
        for message_field in message.field:
            if message_field.type_name.startswith(old):
                message_field.type_name = new + message_field.type_name[len(old):]
    for service in proto.service:
        for method in service.method:
            method.input_type = new + method.input_type[len(old):]
            method.output_type = new + method.output_type[len(old):]
    proto.options.Clear()  # v1alpha's language options (Java package) do not apply
    pool.Add(proto)


def enable(service_names: tuple[str, ...], server: grpc.aio.Server) -> None:
    """Reflection of ``service_names`` (and of both reflection services) on ``server``."""
    names = (*service_names, reflection.SERVICE_NAME, V1_SERVICE_NAME)
    _add_v1_file(descriptor_pool.Default())
    servicer = reflection.aio.ReflectionServicer(names)
    reflection.enable_server_reflection(names, server)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(V1_SERVICE_NAME, {
        "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
            servicer.ServerReflectionInfo,
            request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
            response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString),
    }),))
