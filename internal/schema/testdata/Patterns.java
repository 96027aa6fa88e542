// Checks string values against the constraints of whsim schema's string
// fields with java.util.regex, as Java's JSON Schema validators read them
// (pattern with Matcher.find, whose $ also matches before a final line
// terminator; minLength and maxLength in code points; not with a pattern).
// TestPatternsInJava in dialects_test.go runs it (JDK 11 or later, as a
// single-file program):
//
//   java Patterns.java cases.txt
//
// cases.txt: one case a line, tab-separated: pattern, minLength, maxLength
// (0: none), the not's pattern ("": none), the value; the strings in double
// quotes with the escapes \n \r \t \" \\ and a backslash, u and four hex
// digits (not written out: javac reads that even in a comment). Prints true
// (accepted) or false for each case, one a line.
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

public class Patterns {
  public static void main(String[] args) throws Exception {
    StringBuilder out = new StringBuilder();
    for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
      String[] f = line.split("\t", -1);
      String pattern = unquote(f[0]), not = unquote(f[3]), value = unquote(f[4]);
      int min = Integer.parseInt(f[1]), max = Integer.parseInt(f[2]);
      int n = value.codePointCount(0, value.length());
      boolean ok = Pattern.compile(pattern).matcher(value).find()
          && (min == 0 || n >= min) && (max == 0 || n <= max)
          && (not.isEmpty() || !Pattern.compile(not).matcher(value).find());
      out.append(ok).append('\n');
    }
    System.out.print(out);
  }

  static String unquote(String q) {
    StringBuilder b = new StringBuilder();
    for (int i = 1; i < q.length() - 1; i++) {
      char c = q.charAt(i);
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char e = q.charAt(++i);
      switch (e) {
        case 'n': b.append('\n'); break;
        case 'r': b.append('\r'); break;
        case 't': b.append('\t'); break;
        case 'u': b.append((char) Integer.parseInt(q.substring(i + 1, i + 5), 16)); i += 4; break;
        default: b.append(e);
      }
    }
    return b.toString();
  }
}
