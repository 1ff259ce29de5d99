package sketches

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"
)

// Every exported identifier of the package has a doc comment (a const or
// var inside a documented group may use a line comment instead).
func TestDocComments(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	check(t, err)
	for _, pkg := range pkgs {
		for name, file := range pkg.Files {
			for _, decl := range file.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() && d.Doc == nil && receiverExported(d) {
						t.Errorf("%s: func %s has no doc comment", name, d.Name.Name)
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() && d.Doc == nil && s.Doc == nil {
								t.Errorf("%s: type %s has no doc comment", name, s.Name.Name)
							}
							if st, ok := s.Type.(*ast.StructType); ok && s.Name.IsExported() {
								for _, f := range st.Fields.List {
									for _, n := range f.Names {
										if n.IsExported() && f.Doc == nil && f.Comment == nil {
											t.Errorf("%s: field %s.%s has no comment", name, s.Name.Name, n.Name)
										}
									}
								}
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() && d.Doc == nil && s.Doc == nil && s.Comment == nil {
									t.Errorf("%s: %s has no doc comment", name, n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
}

func receiverExported(d *ast.FuncDecl) bool {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return true
	}
	typ := d.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}
