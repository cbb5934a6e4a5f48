package dev.veil.cli.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.MessageOrBuilder;
import java.math.BigInteger;
import java.util.Base64;
import java.util.List;

/**
 * Writes a protobuf message as JSON for scripts: proto field names ({@code snake_case}), every
 * field present with its value or default (unset oneof members and message fields left out), 64-bit
 * integers as JSON numbers, unsigned integers unsigned, enums by name, bytes as base64.
 */
final class ProtoJson {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private ProtoJson() {}

  static String write(MessageOrBuilder message) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(object(message));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a JSON tree", e);
    }
  }

  /** {@code message} as JSON on one line, for a stream of them (JSON Lines). */
  static String line(MessageOrBuilder message) {
    try {
      return MAPPER.writeValueAsString(object(message));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a JSON tree", e);
    }
  }

  private static ObjectNode object(MessageOrBuilder message) {
    ObjectNode node = NODES.objectNode();
    for (FieldDescriptor field : message.getDescriptorForType().getFields()) {
      if (field.isRepeated()) {
        ArrayNode array = node.putArray(field.getName());
        for (Object value : (List<?>) message.getField(field)) {
          array.add(value(field, value));
        }
      } else if (!field.hasPresence() || message.hasField(field)) {
        node.set(field.getName(), value(field, message.getField(field)));
      }
    }
    return node;
  }

  /** uint32, fixed32, uint64 and fixed64 are held in signed Java types; print them unsigned. */
  private static boolean isUnsigned(FieldDescriptor field) {
    return switch (field.getType()) {
      case UINT32, FIXED32, UINT64, FIXED64 -> true;
      default -> false;
    };
  }

  private static JsonNode value(FieldDescriptor field, Object value) {
    return switch (field.getJavaType()) {
      case MESSAGE -> object((MessageOrBuilder) value);
      case ENUM -> NODES.textNode(((EnumValueDescriptor) value).getName());
      case INT ->
          isUnsigned(field)
              ? NODES.numberNode(Integer.toUnsignedLong((Integer) value))
              : NODES.numberNode((Integer) value);
      case LONG ->
          isUnsigned(field)
              ? NODES.numberNode(new BigInteger(Long.toUnsignedString((Long) value)))
              : NODES.numberNode((Long) value);
      case FLOAT -> NODES.numberNode((Float) value);
      case DOUBLE -> NODES.numberNode((Double) value);
      case BOOLEAN -> NODES.booleanNode((Boolean) value);
      case STRING -> NODES.textNode((String) value);
      case BYTE_STRING ->
          NODES.textNode(Base64.getEncoder().encodeToString(((ByteString) value).toByteArray()));
    };
  }
}
