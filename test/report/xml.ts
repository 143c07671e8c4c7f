/**
 * Parses an XML file with a real parser (python3's ElementTree: python3 is
 * already a prerequisite of the build, README "Two commands") and returns the
 * tree as plain objects, so a test reads what a CI server's parser reads,
 * and a file that is not well-formed fails with the parser's message.
 */
import { execFileSync } from "node:child_process";

export interface XmlNode {
  tag: string;
  attrs: Record<string, string>;
  text: string;
  children: XmlNode[];
}

const PARSE = `
import json, sys, xml.etree.ElementTree as ET
def node(e):
    return {"tag": e.tag, "attrs": dict(e.attrib), "text": e.text or "", "children": [node(c) for c in e]}
print(json.dumps(node(ET.parse(sys.argv[1]).getroot())))
`;

export function parseXmlFile(file: string): XmlNode {
  return JSON.parse(execFileSync("python3", ["-c", PARSE, file], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })) as XmlNode;
}

export function all(node: XmlNode, tag: string): XmlNode[] {
  return [...(node.tag === tag ? [node] : []), ...node.children.flatMap((c) => all(c, tag))];
}
