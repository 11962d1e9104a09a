#!/usr/bin/env python3
"""Writes the compiled-model fixtures the tests read (run it again after editing it).

Xcode's model compiler is not available off Apple platforms, so these `.mom` files are
keyed archives assembled here, object by object, with the class names and keys Core Data
uses in compiled models (see CompiledModelDecoder.swift). Outputs, beside this script:
- Library.mom            one model version (entities, inheritance, every property kind)
- Library.momd/          two versions and VersionInfo.plist naming the second as current
- Library.modelcache     Library.mom compressed with raw DEFLATE, as in Z_MODELCACHE
- SharedPredicateBomb.mom  a hostile archive whose predicate shares one subtree 2^30 times
"""
import os
import plistlib
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


class Archive:
    """An NSKeyedArchiver-shaped object table."""

    def __init__(self):
        self.objects = ["$null"]
        self.classes = {}

    def add(self, value):
        self.objects.append(value)
        return plistlib.UID(len(self.objects) - 1)

    def reserve(self):
        return self.add(None)

    def fill(self, uid, class_name, fields):
        fields = dict(fields)
        fields["$class"] = self.class_ref(class_name)
        self.objects[uid.data] = fields
        return uid

    def obj(self, class_name, fields):
        return self.fill(self.reserve(), class_name, fields)

    def class_ref(self, name):
        if name not in self.classes:
            self.classes[name] = self.add({"$classname": name, "$classes": [name, "NSObject"]})
        return self.classes[name]

    def string(self, text):
        return self.add(text)

    def array(self, items):
        return self.obj("NSArray", {"NS.objects": list(items)})

    def set(self, items):
        return self.obj("NSSet", {"NS.objects": list(items)})

    def dict(self, pairs):
        pairs = list(pairs)
        return self.obj("NSDictionary", {"NS.keys": [self.string(k) for k, _ in pairs], "NS.objects": [v for _, v in pairs]})

    def data(self, root):
        return plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000,
                               "$objects": self.objects, "$top": {"root": root}}, fmt=plistlib.FMT_BINARY)


NULL = plistlib.UID(0)


def expression_self(a):
    return a.obj("NSSelfExpression", {"NSExpressionType": 1})


def expression_constant(a, value):
    return a.obj("NSConstantValueExpression", {"NSExpressionType": 0, "NSConstantValue": a.add(value)})


def expression_key_path(a, path):
    spec = a.obj("NSKeyPathSpecifierExpression", {"NSExpressionType": 10, "NSKeyPath": a.string(path)})
    return a.obj("NSKeyPathExpression", {"NSExpressionType": 3, "NSSelectorName": a.string("valueForKeyPath:"),
                                         "NSOperand": expression_self(a), "NSArguments": a.array([spec])})


def comparison(a, left, operator_type, right, options=0):
    operator_class = "NSMatchingPredicateOperator" if operator_type == 6 else "NSComparisonPredicateOperator"
    fields = {"NSOperatorType": operator_type, "NSModifier": 0}
    if operator_type == 6:
        fields["NSFlags"] = options
    else:
        fields["NSVariant"] = operator_type
        fields["NSOptions"] = options
    op = a.obj(operator_class, fields)
    return a.obj("NSComparisonPredicate", {"NSLeftExpression": left, "NSRightExpression": right, "NSPredicateOperator": op})


def property_fields(a, name, entity, optional=False, transient=False, ordered=False, predicates=(), warnings=(),
                    user_info=None, modifier=None, renaming=None):
    flags = 0x1 | (0x2 if optional else 0) | (0x8 if transient else 0) | (0x400 if ordered else 0)
    fields = {"NSPropertyName": a.string(name), "NSEntity": entity, "_P": flags}
    if optional:
        fields["NSIsOptional"] = True
    if transient:
        fields["NSIsTransient"] = True
    if ordered:
        fields["NSIsOrdered"] = True
    if predicates:
        fields["NSValidationPredicates"] = a.array(predicates)
        fields["NSValidationWarnings"] = a.array([a.add(w) for w in warnings])
    else:
        fields["_P"] |= 0x30
    if user_info:
        fields["NSUserInfo"] = a.dict((k, a.string(v)) for k, v in user_info.items())
    else:
        fields["_P"] |= 0x40
    if modifier:
        fields["NSVersionHashModifier"] = a.string(modifier)
    else:
        fields["_P"] |= 0x80
    if renaming:
        fields["NSRenamingIdentifier"] = a.string(renaming)
    return fields


VALUE_CLASSES = {100: "NSNumber", 200: "NSNumber", 300: "NSNumber", 400: "NSDecimalNumber", 500: "NSNumber", 700: "NSString", 800: "NSNumber",
                 900: "NSDate", 1000: "NSData", 1100: "NSUUID"}


def decimal_number(a, mantissa, exponent):
    """An NSDecimalNumber as Foundation archives it: eight little-endian 16-bit words."""
    words = b"".join(((mantissa >> (16 * i)) & 0xFFFF).to_bytes(2, "little") for i in range(8))
    return a.obj("NSDecimalNumber", {"NS.exponent": exponent, "NS.length": 1, "NS.negative": False,
                                     "NS.compact": True, "NS.mantissa": words, "NS.mantissa.bo": 1})


def attribute(a, name, entity, attribute_type, default=None, external=False, indexed=False, bounds=None, **options):
    fields = property_fields(a, name, entity, **options)
    fields["NSAttributeType"] = attribute_type
    fields["NSAttributeValueClassName"] = a.string(VALUE_CLASSES[attribute_type]) if attribute_type in VALUE_CLASSES else NULL
    if isinstance(default, plistlib.UID):
        fields["NSDefaultValue"] = default
    else:
        fields["NSDefaultValue"] = a.add(default) if default is not None else NULL
    fields["NSValueTransformerName"] = NULL
    fields["NSFlagsKey"] = 0x4 if external else 0
    if bounds:
        low, high = bounds
        if low is not None:
            fields["NSFlagsKey"] |= 0x2
            fields["NSMinValueName"] = low
        if high is not None:
            fields["NSFlagsKey"] |= 0x1
            fields["NSMaxValueName"] = high
    if indexed:
        fields["NSIsIndexed"] = True
    return a.obj("NSAttributeDescription", fields)


def relationship(a, uid, name, entity, destination, destination_name, inverse, inverse_name, min_count, max_count, rule, **options):
    fields = property_fields(a, name, entity, **options)
    fields.update({"NSMinCount": min_count, "NSMaxCount": max_count, "NSDeleteRule": rule,
                   "NSDestinationEntity": destination, "_NSDestinationEntityName": a.string(destination_name),
                   "NSInverseRelationship": inverse, "_NSInverseRelationshipName": a.string(inverse_name) if inverse_name else NULL})
    return a.fill(uid, "NSRelationshipDescription", fields)


def library_model(version):
    """Author ↔ Book (ordered, cascade), Book ↔ Tag (many-to-many), Ebook inherits from Book."""
    a = Archive()
    model = a.reserve()
    author, book, ebook, tag = a.reserve(), a.reserve(), a.reserve(), a.reserve()
    books, book_author, book_tags, tag_books = a.reserve(), a.reserve(), a.reserve(), a.reserve()

    source_name = a.obj("NSKeyPathExpression", {
        "NSExpressionType": 3, "NSSelectorName": a.string("valueForKeyPath:"),
        "NSOperand": a.obj("NSVariableExpression", {"NSExpressionType": 2, "NSVariable": a.string("FETCH_SOURCE")}),
        "NSArguments": a.array([a.obj("NSKeyPathSpecifierExpression", {"NSExpressionType": 10, "NSKeyPath": a.string("name")})])})
    namesakes_request = a.obj("NSFetchRequest", {"NSEntity": book, "NSPredicate": comparison(a, expression_key_path(a, "author.name"), 4, source_name),
                                                 "NSFetchLimit": 0, "NSBatchSize": 0, "NSFetchOffset": 0, "NSResultType": 0})
    namesakes_fields = property_fields(a, "namesakeBooks", author, optional=True, transient=True)
    namesakes_fields.update({"NSFetchRequest": namesakes_request, "_NSFetchRequestEntityName": a.string("Book")})
    namesakes = a.obj("NSFetchedPropertyDescription", namesakes_fields)
    author_props = [
        ("namesakeBooks", namesakes),
        ("name", attribute(a, "name", author, 700, user_info={"display": "Full name"})),
        ("born", attribute(a, "born", author, 900, optional=True)),
        ("books", relationship(a, books, "books", author, book, "Book", book_author, "author", 0, 0, 2, optional=True, ordered=True)),
    ]
    title_rules = [comparison(a, expression_key_path(a, "length"), 3, expression_constant(a, 1)),
                   comparison(a, expression_key_path(a, "length"), 1, expression_constant(a, 200))]
    pages_rules = [comparison(a, expression_self(a), 3, expression_constant(a, 0))]
    isbn_rules = [comparison(a, expression_self(a), 6, expression_constant(a, "[0-9-]+"))]
    book_props = [
        ("title", attribute(a, "title", book, 700, predicates=title_rules, warnings=[1670, 1660])),
        ("pages", attribute(a, "pages", book, 200, default=0, predicates=pages_rules, warnings=[1620])),
        ("rating", attribute(a, "rating", book, 500, default=2.5, optional=True)),
        ("cover", attribute(a, "cover", book, 1000, optional=True, external=True)),
        ("isbn", attribute(a, "isbn", book, 700, optional=True, indexed=True, predicates=isbn_rules, warnings=["ISBN digits and dashes only"])),
        ("identifier", attribute(a, "identifier", book, 1100, optional=True)),
        ("price", attribute(a, "price", book, 400, default=decimal_number(a, 1999, -2), optional=True)),
        ("scratch", attribute(a, "scratch", book, 700, optional=True, transient=True)),
        ("author", relationship(a, book_author, "author", book, author, "Author", books, "books", 0, 1, 1, optional=True)),
        ("tags", relationship(a, book_tags, "tags", book, tag, "Tag", tag_books, "books", 0, 0, 1, optional=True)),
    ]
    if version >= 2:
        book_props.append(("subtitle", attribute(a, "subtitle", book, 700, optional=True, modifier="v2")))
    ebook_own = [("fileSize", attribute(a, "fileSize", ebook, 300, default=0))]
    inherited = [(name, a.obj("_NSPropertyDescriptionProxy", {"NSUnderlyingProperty": uid, "NSReferenceID": index,
                                                              "NSEntityDescription": ebook}))
                 for index, (name, uid) in enumerate(book_props)]
    tag_props = [
        ("name", attribute(a, "name", tag, 700, bounds=(2, 12))),
        ("books", relationship(a, tag_books, "books", tag, book, "Book", book_tags, "tags", 0, 0, 1, optional=True)),
    ]

    def entity(uid, name, class_name, props, superentity=NULL, subentities=(), abstract=False, extra=None):
        fields = {"NSEntityName": a.string(name), "NSClassNameForEntity": a.string(class_name),
                  "NSManagedObjectModel": model, "NSSuperentity": superentity,
                  "NSSubentities": a.dict(subentities) if subentities else NULL,
                  "NSProperties": a.dict(props), "NSUserInfo": NULL, "NSVersionHashModifier": NULL}
        if abstract:
            fields["NSIsAbstract"] = True
        fields.update(extra or {})
        return a.fill(uid, "NSEntityDescription", fields)

    entity(author, "Author", "Author", author_props, extra={"NSUserInfo": a.dict([("table", a.string("writers"))])})
    entity(book, "Book", "Book", book_props, subentities=[("Ebook", ebook)],
           extra={"NSVersionHashModifier": a.string("b2")})
    entity(ebook, "Ebook", "NSManagedObject", inherited + ebook_own, superentity=book)
    entity(tag, "Tag", "Tag", tag_props,
           extra={"NSRenamingIdentifier": a.string("Label"),
                  "NSUniqueTuples": a.array([a.array([a.string("name")])])})

    template_predicate = comparison(a, expression_key_path(a, "author.name"), 4,
                                    a.obj("NSVariableExpression", {"NSExpressionType": 2, "NSVariable": a.string("NAME")}))
    template = a.obj("NSFetchRequest", {"NSEntity": book, "NSPredicate": template_predicate, "NSFetchLimit": 25,
                                        "NSBatchSize": 0, "NSFetchOffset": 0, "NSResultType": 0,
                                        "NSHasFetchRequestFlags": True, "NSFetchRequestFlags": 0x02 | 0x04 | 0x08 | 0x10,
                                        "NSSortDescriptors": a.array([a.obj("NSSortDescriptor", {"NSKey": a.string("title"), "NSAscending": False})])})
    a.fill(model, "NSManagedObjectModel", {
        "NSEntities": a.dict([("Author", author), ("Book", book), ("Ebook", ebook), ("Tag", tag)]),
        "NSConfigurations": a.dict([("Catalog", a.set([author, book, ebook])), ("Labels", a.set([tag]))]),
        "NSFetchRequestTemplates": a.dict([("BooksByAuthor", template)]),
        "NSVersionIdentifiers": a.set([a.string("v%d" % version)]),
    })
    return a.data(model)


def shared_predicate_bomb():
    """A one-entity model whose validation predicate is an AND of the same subpredicate
    twice, 30 levels deep: 2^30 nodes if every reference were expanded."""
    a = Archive()
    model, entity = a.reserve(), a.reserve()
    node = comparison(a, expression_self(a), 3, expression_constant(a, 0))
    for _ in range(30):
        node = a.obj("NSCompoundPredicate", {"NSCompoundPredicateType": 1, "NSSubpredicates": a.array([node, node])})
    count = attribute(a, "count", entity, 300, predicates=[node], warnings=[1620])
    a.fill(entity, "NSEntityDescription", {"NSEntityName": a.string("Counter"), "NSClassNameForEntity": a.string("NSManagedObject"),
                                           "NSManagedObjectModel": model, "NSSuperentity": NULL, "NSSubentities": NULL,
                                           "NSProperties": a.dict([("count", count)]), "NSUserInfo": NULL, "NSVersionHashModifier": NULL})
    a.fill(model, "NSManagedObjectModel", {"NSEntities": a.dict([("Counter", entity)]), "NSFetchRequestTemplates": NULL,
                                           "NSVersionIdentifiers": NULL})
    return a.data(model)


def raw_deflate(data):
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def main():
    first, second = library_model(1), library_model(2)
    with open(os.path.join(HERE, "Library.mom"), "wb") as f:
        f.write(first)
    with open(os.path.join(HERE, "Library.modelcache"), "wb") as f:
        f.write(raw_deflate(first))
    with open(os.path.join(HERE, "SharedPredicateBomb.mom"), "wb") as f:
        f.write(shared_predicate_bomb())
    bundle = os.path.join(HERE, "Library.momd")
    os.makedirs(bundle, exist_ok=True)
    with open(os.path.join(bundle, "Library.mom"), "wb") as f:
        f.write(first)
    with open(os.path.join(bundle, "Library 2.mom"), "wb") as f:
        f.write(second)
    with open(os.path.join(bundle, "VersionInfo.plist"), "wb") as f:
        plistlib.dump({"NSManagedObjectModel_CurrentVersionName": "Library 2",
                       "NSManagedObjectModel_VersionHashes": {"Library": {}, "Library 2": {}}}, f, fmt=plistlib.FMT_BINARY)


if __name__ == "__main__":
    main()
