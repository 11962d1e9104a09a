#!/usr/bin/env python3
"""Writes the mapping-model fixtures the tests read (run it again after editing it).

Xcode's mapping model editor and compiler are not available off Apple platforms, so both
forms of one mapping model, Contacts -> Contacts 2 (Contacts.xcdatamodeld beside this
script), are assembled here:
- ContactsToContacts2.xcmappingmodel/xcmapping.xml  the source form Xcode edits: a Core
  Data XML store of XDDEV* objects, value expressions as base64 keyed archives
- Compiled/ContactsToContacts2.cdm  the compiled form: a keyed archive of NSMappingModel

Version 1 has Person(fullName, notes), Customer(fullName, email) and Note(text, author);
version 2 merges people and customers into Contact(firstName, lastName, email,
isCustomer, notes). A policy (ContactNamePolicy in the tests) splits the full name; only
customers with an email are kept. The version hashes are those of Contacts.xcdatamodeld
(`cdtool model` prints them).
"""
import base64
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Compiled"))
from make_compiled_fixtures import Archive, NULL, expression_constant, expression_key_path  # noqa: E402

POLICY = "OpenCoreDataTests.ContactNamePolicy"
HASHES = {
    ("source", "Person"): "Ef418+nGb45Xk3PwZT7TKUzN8s4SrLH1MdkNqG+t6pA=",
    ("source", "Customer"): "hQtkSql41BqvuWFR/cTAwAOK357JDI/RjG5G5yKtpxE=",
    ("source", "Note"): "2O8phLZmXZxTWhJ5xLys5hKlX3GfZBpYfoqDle0mQvM=",
    ("destination", "Contact"): "VV3jVGIVAnme15d3Kg0Qa/BiDSw18BX3eee48IGhi2c=",
    ("destination", "Note"): "o4M7ntlRF2mUTG+MVtLQujQkqVWwhLjGD5hMNp/7i+k=",
}


def variable(a, name):
    return a.obj("NSVariableExpression", {"NSExpressionType": 2, "NSVariable": a.string(name)})


def key_path_on(a, operand, path):
    """`$operand.path`: valueForKeyPath: sent to the operand."""
    spec = a.obj("NSKeyPathSpecifierExpression", {"NSExpressionType": 10, "NSKeyPath": a.string(path)})
    return a.obj("NSKeyPathExpression", {"NSExpressionType": 3, "NSSelectorName": a.string("valueForKeyPath:"),
                                         "NSOperand": operand, "NSArguments": a.array([spec])})


def function(a, target, selector, arguments):
    """FUNCTION(target, "selector", arguments...)."""
    return a.obj("NSFunctionExpression", {"NSExpressionType": 4, "NSOperand": target,
                                          "NSSelectorName": a.string(selector), "NSArguments": a.array(arguments)})


def split_name(a, selector):
    return function(a, variable(a, "entityPolicy"), selector, [key_path_on(a, variable(a, "source"), "fullName")])


def source_fetch(a, entity, predicate):
    request = function(a, variable(a, "manager"), "fetchRequestForSourceEntityNamed:predicateString:",
                       [expression_constant(a, entity), expression_constant(a, predicate)])
    return a.obj("NSFetchRequestExpression", {"NSExpressionType": 50, "NSFRExpression": request,
                                              "NSMOCExpression": key_path_on(a, variable(a, "manager"), "sourceContext"),
                                              "NSCountOnlyFlag": False})


def through(a, mapping, relationship):
    return function(a, variable(a, "manager"), "destinationInstancesForEntityMappingNamed:sourceInstances:",
                    [expression_constant(a, mapping), key_path_on(a, variable(a, "source"), relationship)])


def archived_expression(build):
    """One expression as its own keyed archive, base64 as Xcode writes binary attributes."""
    a = Archive()
    return base64.b64encode(a.data(build(a))).decode("ascii")


def archived_user_info(pairs):
    a = Archive()
    return base64.b64encode(a.data(a.dict([(k, a.string(v)) for k, v in pairs]))).decode("ascii")


# MARK: xcmapping.xml

def xml_object(kind, oid, attributes, relationships):
    lines = [f'    <object type="{kind}" id="{oid}">']
    for name, (value_type, value) in attributes.items():
        lines.append(f'        <attribute name="{name}" type="{value_type}">{value}</attribute>')
    for name, (destination, refs) in relationships.items():
        shape = "1/1" if len(refs) == 1 and name in ("entitymapping", "mappingmodel") else "0/0"
        lines.append(f'        <relationship name="{name}" type="{shape}" destination="{destination}" idrefs="{" ".join(refs)}"></relationship>')
    lines.append("    </object>")
    return "\n".join(lines)


def xcmapping_xml():
    objects = []
    entity_ids = []
    next_id = [200]

    def new_id():
        next_id[0] += 1
        return f"z{next_id[0]}"

    def property_object(kind, owner, name, expression=None):
        oid = new_id()
        attributes = {"name": ("string", name)}
        if expression is None:
            attributes["autogenerateexpression"] = ("bool", "1")
        else:
            attributes["valueexpressiondata"] = ("binary", archived_expression(expression))
        objects.append(xml_object(kind, oid, attributes, {"entitymapping": ("XDDEVENTITYMAPPING", [owner])}))
        return oid

    def entity_object(number, source, destination, type_name, attributes, relationships, extra=None):
        oid = new_id()
        entity_ids.append(oid)
        fields = {"sourcename": ("string", source), "destinationname": ("string", destination),
                  "mappingtypename": ("string", type_name), "mappingnumber": ("int16", str(number)),
                  "autogenerateexpression": ("bool", "1")}
        fields.update(extra or {})
        attribute_ids = [property_object("XDDEVATTRIBUTEMAPPING", oid, n, e) for n, e in attributes]
        relationship_ids = [property_object("XDDEVRELATIONSHIPMAPPING", oid, n, e) for n, e in relationships]
        objects.append(xml_object("XDDEVENTITYMAPPING", oid, fields, {
            "mappingmodel": ("XDDEVMAPPINGMODEL", ["z200"]),
            "attributemappings": ("XDDEVATTRIBUTEMAPPING", attribute_ids),
            "relationshipmappings": ("XDDEVRELATIONSHIPMAPPING", relationship_ids)}))

    names = [("firstName", lambda a: split_name(a, "firstNameOf:")), ("lastName", lambda a: split_name(a, "lastNameOf:"))]
    # Written out of order: mappingnumber decides the order, as in Xcode's editor.
    entity_object(3, "Note", "Note", "Undefined", [("text", None)], [("author", None)])
    entity_object(1, "Person", "Contact", "Custom", names, [("notes", None)],
                  {"migrationpolicyclassname": ("string", POLICY),
                   "userinfodata": ("binary", archived_user_info([("purpose", "split names")]))})
    entity_object(2, "Customer", "Contact", "Custom",
                  names + [("email", None), ("isCustomer", lambda a: expression_constant(a, True))], [("notes", None)],
                  {"migrationpolicyclassname": ("string", POLICY), "sourcefilterpredicatestring": ("string", "email != nil")})
    model = xml_object("XDDEVMAPPINGMODEL", "z200", {
        "sourcemodelpath": ("string", "Contacts.xcdatamodeld/Contacts.xcdatamodel"),
        "destinationmodelpath": ("string", "Contacts.xcdatamodeld/Contacts 2.xcdatamodel")},
        {"entitymappings": ("XDDEVENTITYMAPPING", entity_ids)})
    return "\n".join([
        '<?xml version="1.0" standalone="yes"?>',
        '<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">',
        "",
        "<database>",
        "    <databaseInfo>",
        "        <version>134481920</version>",
        "        <UUID>6C1F0C55-1D5C-4E0B-9C34-0D2F7E2B8A11</UUID>",
        f"        <nextObjectID>{next_id[0] + 1}</nextObjectID>",
        "    </databaseInfo>",
        *objects,
        model,
        "</database>",
        ""])


# MARK: .cdm

def compiled_mapping():
    a = Archive()

    def data(text):
        return a.add(base64.b64decode(text))

    def property_mapping(name, expression):
        fields = {"NSDestinationPropertyName": a.string(name)}
        if expression is not None:
            fields["NSValueExpression"] = expression
        return a.obj("NSPropertyMapping", fields)

    def entity_mapping(name, mapping_type, source, destination, source_expression, attributes, relationships, policy=None, user_info=None):
        fields = {"NSMappingName": a.string(name), "NSMappingType": mapping_type,
                  "NSSourceEntityName": a.string(source), "NSDestinationEntityName": a.string(destination),
                  "NSSourceEntityVersionHash": data(HASHES[("source", source)]),
                  "NSDestinationEntityVersionHash": data(HASHES[("destination", destination)]),
                  "NSSourceExpression": source_expression,
                  "NSAttributeMappings": a.array(attributes), "NSRelationshipMappings": a.array(relationships)}
        if policy:
            fields["NSEntityMigrationPolicyClassName"] = a.string(policy)
        if user_info:
            fields["NSUserInfo"] = a.dict([(k, a.string(v)) for k, v in user_info])
        return a.obj("NSEntityMapping", fields)

    def names():
        return [property_mapping("firstName", split_name(a, "firstNameOf:")), property_mapping("lastName", split_name(a, "lastNameOf:"))]

    people = entity_mapping("PersonToContact", 1, "Person", "Contact", source_fetch(a, "Person", "TRUEPREDICATE"), names(),
                            [property_mapping("notes", through(a, "NoteToNote", "notes"))], POLICY, [("purpose", "split names")])
    customers = entity_mapping("CustomerToContact", 1, "Customer", "Contact", source_fetch(a, "Customer", "email != nil"),
                               names() + [property_mapping("email", key_path_on(a, variable(a, "source"), "email")),
                                          property_mapping("isCustomer", expression_constant(a, True))],
                               [property_mapping("notes", None)], POLICY)
    notes = entity_mapping("NoteToNote", 5, "Note", "Note", source_fetch(a, "Note", "TRUEPREDICATE"),
                           [property_mapping("text", key_path_on(a, variable(a, "source"), "text"))],
                           [property_mapping("author", through(a, "PersonToContact", "author"))])
    mappings = [people, customers, notes]
    root = a.obj("NSMappingModel", {"NSEntityMappings": a.array(mappings),
                                    "NSEntityMappingsByName": a.dict(zip(["PersonToContact", "CustomerToContact", "NoteToNote"], mappings))})
    return a.data(root)


def main():
    folder = os.path.join(HERE, "ContactsToContacts2.xcmappingmodel")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "xcmapping.xml"), "w") as f:
        f.write(xcmapping_xml())
    compiled = os.path.join(HERE, "Compiled")
    os.makedirs(compiled, exist_ok=True)
    with open(os.path.join(compiled, "ContactsToContacts2.cdm"), "wb") as f:
        f.write(compiled_mapping())


if __name__ == "__main__":
    main()
